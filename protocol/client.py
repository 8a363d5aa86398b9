"""The client side of Hub: a child engine process on pipes, with timed reads.

One client serves the match runner, the latency tool, the board in the browser and the tests. A
reader thread per stream stamps every line the moment it arrives (so the client's own work never
counts in a latency), stdout lines are queued for `read`/`until` (or handed to a listener, for an
event loop), and stderr is kept (and optionally copied to a file)
so that a failure can show what the engine said. Every wait has a timeout: a silent or dead
engine raises instead of hanging its client.
"""
from __future__ import annotations

import os
import queue
import shlex
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import IO

STDERR_KEEP = 200            # stderr lines kept for error reports


class EngineError(Exception):
    """The engine broke the protocol, crashed or could not be started."""


class EngineTimeout(EngineError):
    """No awaited line within the time allowed."""


@dataclass
class StampedLine:
    text: str
    at: float                # time.monotonic() when the line was read


@dataclass
class Stream:
    """Everything one pipe delivered, and when it closed."""

    lines: list[StampedLine] = field(default_factory=list)
    closed_at: float | None = None


def first_word(text: str) -> str:
    parts = text.split(None, 1)
    return parts[0] if parts else ""


class HubClient:
    """An engine process spoken to over stdin/stdout.

    `command` is a list of words or a shell-like string (split with shlex, never run by a shell).
    `keep_stdout` records every stdout line in `out.lines` as well (tests check them all).
    `listener`, when given, receives every stdout line (and None when the output ends) on the
    reader thread instead of the queue that `read`/`until` wait on: an event loop hands lines
    to itself from there without a thread of its own blocked in `read`.
    `preexec_fn` runs in the child between fork and exec (POSIX only), e.g. to make the
    child die with its parent.
    """

    def __init__(self, command: Sequence[str] | str, cwd: str | os.PathLike | None = None,
                 env: dict[str, str] | None = None, stderr_copy: IO[str] | None = None,
                 keep_stdout: bool = False,
                 listener: Callable[[StampedLine | None], None] | None = None,
                 preexec_fn: Callable[[], None] | None = None) -> None:
        self.command = shlex.split(command) if isinstance(command, str) else list(command)
        self.cwd = cwd
        self.env = env
        self.stderr_copy = stderr_copy
        self.keep_stdout = keep_stdout
        self.listener = listener
        self.preexec_fn = preexec_fn
        self.proc: subprocess.Popen | None = None
        self.started = 0.0
        self.out = Stream()
        self.err = Stream()
        self._queue: queue.Queue[StampedLine | None] = queue.Queue()
        self._threads: list[threading.Thread] = []
        self.sent: list[str] = []

    # -- process ---------------------------------------------------------------------------
    def start(self) -> HubClient:
        """Spawn the engine; EngineError (with the reason) if it cannot be started."""
        self.out, self.err = Stream(), Stream()
        self._queue = queue.Queue()
        self.started = time.monotonic()
        try:
            self.proc = subprocess.Popen(self.command, cwd=self.cwd, env=self.env,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, bufsize=0,
                                         preexec_fn=self.preexec_fn)
        except OSError as exc:
            raise EngineError(f"cannot start {shlex.join(self.command)}: {exc}") from None
        # a reader joins the list only once started: kill() from another thread (a tournament's
        # Ctrl-C clean-up while a worker restarts an engine) must find nothing it cannot join
        self._threads = []
        for pipe, stream, is_stdout in ((self.proc.stdout, self.out, True),
                                        (self.proc.stderr, self.err, False)):
            reader = threading.Thread(target=self._pump, args=(pipe, stream, is_stdout),
                                      daemon=True)
            reader.start()
            self._threads.append(reader)
        return self

    def _pump(self, pipe, stream: Stream, is_stdout: bool) -> None:
        try:
            for raw in iter(pipe.readline, b""):
                line = StampedLine(raw.decode("utf-8", "replace").rstrip("\r\n"),
                                   time.monotonic())
                if is_stdout:
                    if self.keep_stdout:
                        stream.lines.append(line)
                    self._deliver(line)
                else:
                    stream.lines.append(line)
                    del stream.lines[:-STDERR_KEEP]
                    if self.stderr_copy is not None:
                        try:
                            self.stderr_copy.write(line.text + "\n")
                            self.stderr_copy.flush()
                        except (OSError, ValueError):
                            pass
        except (OSError, ValueError):
            pass
        finally:
            stream.closed_at = time.monotonic()
            if is_stdout:
                self._deliver(None)

    def _deliver(self, line: StampedLine | None) -> None:
        if self.listener is not None:
            self.listener(line)
        else:
            self._queue.put(line)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def returncode(self) -> int | None:
        return None if self.proc is None else self.proc.poll()

    def stderr_text(self, last: int = 2000) -> str:
        """The end of what the engine wrote on stderr (for error messages)."""
        return "\n".join(line.text for line in self.err.lines)[-last:]

    def describe_exit(self) -> str:
        """`exited with code N` plus the engine's last stderr lines, for a failure report."""
        code = self.returncode()
        if code is not None:
            for t in self._threads:    # let the readers take in the last of its output
                t.join(1.0)
        what = "is still running" if code is None else f"exited with code {code}"
        tail = self.stderr_text()
        return f"{what}; its stderr: {tail}" if tail else f"{what} (nothing on stderr)"

    # -- writing ---------------------------------------------------------------------------
    def send(self, *lines: str) -> float:
        """Write lines in one flush; the monotonic time just BEFORE the write (an answer can be
        stamped by the reader thread before this thread runs again)."""
        data = "".join(f"{line}\n" for line in lines).encode()
        self.sent.extend(lines)
        at = time.monotonic()
        self.send_raw(data)
        return at

    def send_raw(self, data: bytes) -> None:
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (OSError, ValueError, AttributeError) as exc:
            self._wait_exit_briefly()
            raise EngineError(f"cannot write to the engine ({type(exc).__name__}); it "
                              f"{self.describe_exit()}") from None

    def close_stdin(self) -> float:
        self.proc.stdin.close()
        return time.monotonic()

    # -- reading ---------------------------------------------------------------------------
    def read(self, timeout: float) -> StampedLine | None:
        """The next stdout line; None at end of output; EngineTimeout when nothing comes."""
        try:
            return self._queue.get(timeout=max(0.0, timeout))
        except queue.Empty:
            raise EngineTimeout(f"no output within {timeout:.2f} s; sent last: "
                                f"{self.sent[-3:]}; stderr: {self.stderr_text()}") from None

    def until(self, word: str | Callable[[str], bool], timeout: float,
              fail_on: tuple[str, ...] = ()) -> list[StampedLine]:
        """Lines up to and including the first that `word` matches (its first word, or a
        predicate on the text); a line whose first word is in `fail_on` raises at once."""
        match = word if callable(word) else (lambda text: first_word(text) == word)
        what = getattr(word, "__name__", "line") if callable(word) else repr(word)
        deadline = time.monotonic() + timeout
        got: list[StampedLine] = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise EngineTimeout(f"no {what} within {timeout:.2f} s; got "
                                    f"{[x.text for x in got][-5:]}; stderr: {self.stderr_text()}")
            try:
                line = self._queue.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                self._wait_exit_briefly()
                raise EngineError(f"the engine's output ended while waiting for {what}; it "
                                  f"{self.describe_exit()}")
            got.append(line)
            if match(line.text):
                return got
            if first_word(line.text) in fail_on:
                raise EngineError(f"{line.text!r} while waiting for {what}; stderr: "
                                  f"{self.stderr_text()}")

    def drain(self, wait: float = 0.0) -> list[str]:
        """Whatever stdout has queued now (after waiting `wait` seconds); EngineError if the
        output has ended."""
        if wait:
            time.sleep(wait)
        got = []
        while True:
            try:
                line = self._queue.get_nowait()
            except queue.Empty:
                return got
            if line is None:
                self._queue.put(None)      # keep the end mark for the next reader
                return got
            got.append(line.text)

    def _wait_exit_briefly(self) -> None:
        """Output ended: give the process a moment to exit so its code can be reported."""
        if self.proc is not None:
            try:
                self.proc.wait(1.0)
            except subprocess.TimeoutExpired:
                pass
            for t in self._threads:
                t.join(1.0)

    # -- ending ----------------------------------------------------------------------------
    def wait_exit(self, timeout: float) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise EngineTimeout(f"the engine did not exit within {timeout} s") from None

    def quit(self, timeout: float = 5.0) -> int | None:
        """`quit`, then wait for the exit; kill if it lingers. The exit code, None if killed."""
        if self.proc is None:
            return None
        code = None
        if self.alive():
            try:
                self.send("quit")
                code = self.wait_exit(timeout)
            except EngineError:
                pass
        else:
            code = self.proc.poll()
        self.kill()
        return code

    def kill(self) -> None:
        """Kill the process (if alive) and close its pipes."""
        if self.proc is None:
            return
        try:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            pass
        for t in self._threads:
            t.join(5)
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                pipe.close()
            except (OSError, ValueError):
                pass

    def __enter__(self) -> HubClient:
        return self

    def __exit__(self, *exc) -> None:
        if self.alive():
            self.quit()
        self.kill()
