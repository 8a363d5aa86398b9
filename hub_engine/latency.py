"""Latency of the engine as a Hub client feels it, measured over real pipes.

    python -m hub_engine.latency [--runs N] [--exe CMD] [--warmup N] [--tt-size N]

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
import os
import queue
import shlex
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

TIMEOUT = 30.0
FIGURES = ("start_to_wait", "init_to_ready", "stop_to_done")


class LatencyError(RuntimeError):
    """The engine did not answer as expected."""


class _Pipe:
    """An engine process with a reader thread that stamps each stdout line on arrival."""

    def __init__(self, cmd: list[str]) -> None:
        self.start = time.perf_counter()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, bufsize=0, env=_env())
        self._lines: queue.Queue[tuple[float, str] | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        try:
            for raw in iter(self.proc.stdout.readline, b""):
                self._lines.put((time.perf_counter(), raw.decode("utf-8", "replace").strip()))
        except (OSError, ValueError):
            pass
        self._lines.put(None)

    def send(self, *lines: str) -> float:
        """Write lines; the time just BEFORE the write (the answer may be stamped by the reader
        thread before this thread runs again, so a time taken after could come out later)."""
        at = time.perf_counter()
        self.proc.stdin.write("".join(f"{line}\n" for line in lines).encode())
        self.proc.stdin.flush()
        return at

    def wait_for(self, word: str) -> float:
        """Arrival time of the next line starting with `word` (earlier lines are skipped)."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                item = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise LatencyError(f"no {word!r} within {TIMEOUT} s") from None
            if item is None:
                raise LatencyError(f"the engine's output ended before {word!r}")
            at, text = item
            head = text.split(None, 1)[0] if text else ""
            if head == word:
                return at
            if head == "error" and word in ("wait", "ready"):
                raise LatencyError(f"the engine said {text!r} while {word!r} was awaited")

    def close(self) -> None:
        try:
            self.send("quit")
            self.proc.stdin.close()
            self.proc.wait(5)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait(5)
        finally:
            self.proc.stdout.close()


def _env() -> dict[str, str]:
    """The engine's environment; `-m hub_engine` finds this checkout even when run elsewhere."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def measure_once(cmd: list[str], tt_size: int | None = None, search_time: float = 0.3,
                 variant: str | None = None) -> dict[str, float]:
    """One engine start: the three figures in seconds."""
    pipe = _Pipe(cmd)
    try:
        pipe.send("hub")
        start_to_wait = pipe.wait_for("wait") - pipe.start
        params = []
        if variant:
            params.append(f"set-param name=variant value={variant}")
        if tt_size is not None:
            params.append(f"set-param name=tt-size value={tt_size}")
        if params:
            pipe.send(*params)
        sent = pipe.send("init")
        init_to_ready = pipe.wait_for("ready") - sent
        pipe.send("pos", "level infinite", "go analyze")
        pipe.wait_for("info")
        time.sleep(search_time)
        sent = pipe.send("stop")
        stop_to_done = pipe.wait_for("done") - sent
        return {"start_to_wait": start_to_wait, "init_to_ready": init_to_ready,
                "stop_to_done": stop_to_done}
    finally:
        pipe.close()


def summary(samples: dict[str, list[float]]) -> list[str]:
    """The report lines: `name median=S max=S` per figure."""
    return [f"{name} median={statistics.median(samples[name]):.3f} max={max(samples[name]):.3f}"
            for name in FIGURES]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hub_engine.latency",
                                description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=10, help="engine starts measured (default 10)")
    p.add_argument("--exe", help="engine command line (default: this Python -m hub_engine)")
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
    cmd = shlex.split(args.exe) if args.exe else [sys.executable, "-m", "hub_engine"]
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
