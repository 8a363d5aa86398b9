"""Latency of the engine as a Hub client feels it, measured over real pipes.

    python -m hub_engine.matches.latency [--runs N] [--exe CMD] [--warmup N] [--tt-size N]

Each run starts the engine afresh and times, from the client's side:
- start_to_wait: process start (just before the spawn) -> `wait`, `hub` being sent at once;
- init_to_ready: `init` sent -> `ready`;
- stop_to_done:  `stop` sent -> `done`, during a `go analyze` that has searched ~0.3 s.

It prints one line per figure, `start_to_wait median=0.123 max=0.150` (seconds), after `#`
comment lines that say what was measured. Arrival times are taken by a reader thread the moment
a line is read, so the client's own work does not count. Nothing here is asserted: the targets
(wait under 0.3 s from a warm start, stop to done under 50 ms) are for a human to compare.
"""
from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import time

from hub_engine.program import self_command
from protocol.client import EngineError, HubClient

TIMEOUT = 30.0
FIGURES = ("start_to_wait", "init_to_ready", "stop_to_done")


class LatencyError(RuntimeError):
    """The engine did not answer as expected."""


def _wait_for(client: HubClient, word: str) -> float:
    """Arrival time of the next line starting with `word` (earlier lines are skipped); an
    `error` line while `wait` or `ready` is awaited fails at once."""
    fail_on = ("error",) if word in ("wait", "ready") else ()
    try:
        return client.until(word, TIMEOUT, fail_on=fail_on)[-1].at
    except EngineError as exc:
        raise LatencyError(str(exc)) from None


def measure_once(cmd: list[str], tt_size: int | None = None, search_time: float = 0.3,
                 variant: str | None = None) -> dict[str, float]:
    """One engine start: the three figures in seconds."""
    client = HubClient(cmd)
    try:
        client.start()
    except EngineError as exc:
        raise LatencyError(str(exc)) from None
    try:
        client.send("hub")
        start_to_wait = _wait_for(client, "wait") - client.started
        params = []
        if variant:
            params.append(f"set-param name=variant value={variant}")
        if tt_size is not None:
            params.append(f"set-param name=tt-size value={tt_size}")
        if params:
            client.send(*params)
        sent = client.send("init")
        init_to_ready = _wait_for(client, "ready") - sent
        client.send("pos", "level infinite", "go analyze")
        _wait_for(client, "info")
        time.sleep(search_time)
        sent = client.send("stop")
        stop_to_done = _wait_for(client, "done") - sent
        return {"start_to_wait": start_to_wait, "init_to_ready": init_to_ready,
                "stop_to_done": stop_to_done}
    finally:
        client.quit()


def summary(samples: dict[str, list[float]]) -> list[str]:
    """The report lines: `name median=S max=S` per figure."""
    return [f"{name} median={statistics.median(samples[name]):.3f} max={max(samples[name]):.3f}"
            for name in FIGURES]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hub_engine.matches.latency",
                                description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=10, help="engine starts measured (default 10)")
    p.add_argument("--exe", help="engine command line (default: this program itself)")
    p.add_argument("--warmup", type=int, default=1,
                   help="unmeasured starts first, to warm the file cache (default 1)")
    p.add_argument("--tt-size", type=int, help="set-param tt-size before init (default: the "
                   "engine's own default)")
    p.add_argument("--variant", help="set-param variant before init")
    p.add_argument("--search-time", type=float, default=0.3,
                   help="seconds of `go analyze` before `stop` (default 0.3)")
    args = p.parse_args(argv)
    if args.runs < 1 or args.warmup < 0:
        p.error("--runs must be at least 1 and --warmup at least 0")
    cmd = shlex.split(args.exe) if args.exe else self_command()
    print(f"# {args.runs} runs (+{args.warmup} warm-up) of: {shlex.join(cmd)}", flush=True)
    print(f"# tt-size={args.tt_size if args.tt_size is not None else 'default'} "
          f"search before stop={args.search_time}s; seconds, client side", flush=True)
    samples: dict[str, list[float]] = {name: [] for name in FIGURES}
    try:
        for i in range(args.warmup + args.runs):
            figures = measure_once(cmd, args.tt_size, args.search_time, args.variant)
            if i >= args.warmup:
                for name in FIGURES:
                    samples[name].append(figures[name])
    except (LatencyError, OSError) as exc:
        print(f"latency: error: {exc}", file=sys.stderr)
        return 1
    for line in summary(samples):
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
