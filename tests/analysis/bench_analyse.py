"""Positions per second of `analyse` for several worker counts (a benchmark, not a test).

    python tests/analysis/bench_analyse.py --depth 10 --workers 1 2 --repeat 2

Runs the real engine on tests/analysis/data/games.pdn (81 positions in five variants) and prints,
per run: workers, positions, wall seconds, positions per second, the mean wall time per position
inside the workers, the CPU seconds of the run (this process and the pool's workers), and the
load average before the run (other programs on the machine skew the wall-clock figures).
"""
import argparse
import json
import os
import resource
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent.parent))

from hub_engine.analysis import analyse  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--depth", type=int, default=10)
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("files", nargs="*", default=[str(HERE / "data" / "games.pdn")])
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeat):
            for w in args.workers:
                out = os.path.join(tmp, f"w{w}.jsonl")
                load = os.getloadavg()[0]
                cpu0 = _cpu()
                s = analyse(args.files, depth=args.depth, workers=w, output=out, resume=False,
                            errors_to=None, progress=False)
                with open(out) as f:
                    times = [json.loads(line)["time"] for line in f]
                mean = sum(times) / len(times) if times else 0.0
                cpu = _cpu() - cpu0
                print(f"depth={args.depth} workers={w} positions={s['analysed']} "
                      f"wall={s['elapsed']:.2f}s rate={s['positions_per_second']:.1f}/s "
                      f"search={mean * 1000:.1f}ms/position cpu={cpu:.2f}s "
                      f"load={load:.1f}", flush=True)


def _cpu() -> float:
    """CPU seconds used by this process and its finished children (the pool's workers)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


if __name__ == "__main__":
    main()
