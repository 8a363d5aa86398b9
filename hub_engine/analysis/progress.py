"""The run's progress bar on stderr (tqdm): positions done of those expected, rate, ETA.

The input is read as the run goes, so the number of positions is not known at the start: the
total shown is extrapolated from the part of the input read so far (exact once it is all
read, when the note "input N% read" goes). Positions whose records a resumed run reuses count
as done but not in the rate, so the ETA is that of the searches still to do.
"""
from __future__ import annotations

import sys
from typing import IO

BAR_FORMAT = ("{percentage:3.0f}%|{bar:24}| {n_fmt}/{total_fmt} positions{postfix} "
              "[{rate_fmt}, ETA {remaining}]")


class Progress:
    """The bar, or nothing when `stream` is None; notes are printed above it."""

    def __init__(self, stream: IO[str] | None):
        self.stream = stream
        self.bar = None
        if stream is not None:
            from tqdm import tqdm    # only when a bar is shown: every tool's start stays quick

            self.bar = tqdm(total=0, file=stream, bar_format=BAR_FORMAT, unit=" positions",
                            smoothing=0.0, mininterval=0.2, dynamic_ncols=True)

    def update(self, done: int, total: int, new: int, fraction: float,
               force: bool = False) -> None:
        """`done` positions of the `total` made so far (`new` of them searched in this run),
        `fraction` of the input read."""
        bar = self.bar
        if bar is None:
            return
        expected = round(total / fraction) if 0 < fraction < 1 else total
        bar.total = max(expected, done)
        bar.initial = done - new        # reused records count as done, not in the rate
        bar.set_postfix_str("" if fraction >= 1 else f"input {fraction:.0%} read", refresh=False)
        bar.update(done - bar.n)
        if force:
            bar.refresh()

    def note(self, text: str, out: IO[str]) -> None:
        """Print a line without mixing it into the bar."""
        if self.bar is not None and out is self.stream:
            self.bar.write(text, file=out)
        else:
            print(text, file=out, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str("", refresh=False)
            self.bar.close()


def stream_for(progress: object) -> IO[str] | None:
    """Where the bar goes: stderr when `progress` is True, or None and stderr is a terminal."""
    show = progress if isinstance(progress, bool) else (progress is None and sys.stderr.isatty())
    return sys.stderr if show else None
