"""`hub-engine book build`: grow a rule-set's book by drop-out expansion (hub_engine.book.tree).

The roots are the start position and every ballot of the rule-set's ballot sets
(hub_engine.book.ballots), plus any given with --ballots. Each root is scored and expanded first;
after that the leaf of least priority is expanded: each of its children is scored by a search of
a fixed node budget (hub_engine.book.score). The searches run on hub_engine.executors (in this
process with one worker, a local process pool, or a Dask cluster), a few at a time per worker, so
a build with several workers expands several leaves at once.

Every scored position is appended to the build's log (hub_engine.book.worklog) as soon as its
search returns: a killed build loses only the searches in flight, and the same command resumes.
`positions` more (or up to `total`) are scored per run, so a book grows run after run. With
`line_plies`, the run makes every root's main line that many plies deep instead (and stops when
they are, or at the budget). The book file (hub_engine.book.fileformat) is written from the tree
at the end of a run, after Ctrl-C, and every `save_every` seconds meanwhile. Each run appends its
figures to work/<rule-set>.runs.jsonl.
"""
from __future__ import annotations

import json
import sys
import time
from array import array
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from hub_engine.book import ballots as ballot_data
from hub_engine.book import store
from hub_engine.book.fileformat import EXPANDED, BookData, Header, rules_fingerprint, write_book
from hub_engine.book.score import eval_id, run_job
from hub_engine.book.tree import DEFAULT_W, EXPANDED as NODE_EXPANDED, Tree, potential
from hub_engine.book.worklog import WorkLog, read_log

DEFAULT_NODES = 500_000         # about depth 14 in the opening, 0.1 s of one core
DEFAULT_BALLOT_PRIORITY = 10.0  # a ballot's subtree grows once the start's lines are 10 plies deep
SAVE_EVERY = 600.0              # seconds between book files written during a run
START_LABEL = "start"


@dataclass(frozen=True)
class Settings:
    """What decides every score of a book (the log's header; a resumed build must match)."""

    ruleset: str
    nodes: int = DEFAULT_NODES
    eval: str = "learned"

    def header(self) -> dict:
        from hub_engine.rules.variants import get_variant

        return {"ruleset": self.ruleset, "nodes": self.nodes, "eval": self.eval,
                "eval_id": eval_id(self.ruleset, self.eval),
                "fingerprint": f"{rules_fingerprint(get_variant(self.ruleset).core_rules):08x}"}


def read_roots(path: Path, ruleset: str) -> list[tuple[str, str]]:
    """(Hub position, label) of a ballot file: one position a line (Hub string or PDN FEN),
    then an optional name; `#` starts a comment line."""
    from hub_engine.rules.position import Position

    out = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        text, _sep, name = line.strip().replace("\t", " ").partition(" ")
        try:
            pos = Position.parse(ruleset, text)
        except ValueError as exc:
            raise ValueError(f"{path}:{number}: {exc}") from None
        out.append((pos.hub(), f"{Path(path).name}/{name.strip() or number}"))
    return out


def default_roots(ruleset: str) -> list[tuple[str, str]]:
    from hub_engine.rules.position import Position

    roots = [(Position.start(ruleset).hub(), START_LABEL)]
    roots += [(b.position, f"{b.set}/{b.name}") for b in ballot_data.ballots(ruleset)]
    return roots


class Jobs:
    """The scoring searches, made as the executor asks for them: the next expansion's children.

    It stops (for now) when the target is reached or no leaf can be expanded until a result
    comes back; the pool executor asks again after each result."""

    def __init__(self, tree: Tree, roots: dict[int, str], variant, target: int) -> None:
        self.tree, self.roots, self.variant, self.target = tree, roots, variant, target
        self.queue: deque = deque()
        self.boards: dict[int, object] = {}

    def __iter__(self) -> "Jobs":
        return self

    def __next__(self) -> dict:
        from hub_engine.rules.position import Position

        tree = self.tree
        while not self.queue:
            if len(tree.nodes) + len(tree.scoring) >= self.target:
                raise StopIteration
            key = tree.select()
            if key is None:
                raise StopIteration
            if key not in tree.nodes:                 # a root not scored yet
                board = Position.from_hub(self.variant, self.roots[key]).board
                todo = [(key, board)]
            else:
                todo = tree.begin(key)
            for k, board in todo:
                tree.scoring.add(k)
                self.boards[k] = board
                self.queue.append({"key": k, "position": Position(self.variant, board).hub()})
        return self.queue.popleft()


def book_data(tree: Tree, ruleset: str, fingerprint: int, nodes: int) -> BookData:
    """The book file's arrays from a tree: every scored position, its value, whether it is
    expanded, and how far the book's best line goes below it."""
    from hub_engine.book.keys import negate

    heights: dict[int, int] = {}
    expanded = sorted((k for k, n in tree.nodes.items() if n.state == NODE_EXPANDED),
                      key=lambda k: potential(tree.nodes[k].board))
    for k in expanded:
        node = tree.nodes[k]
        best = max(node.children, key=lambda c: negate(tree.nodes[c].value))
        heights[k] = min(255, 1 + heights.get(best, 0))
    keys = sorted(tree.nodes)
    values = array("h", (max(-32767, min(32767, tree.nodes[k].value)) for k in keys))
    flags = bytes(EXPANDED if tree.nodes[k].state == NODE_EXPANDED else 0 for k in keys)
    hts = bytes(heights.get(k, 0) for k in keys)
    header = Header(ruleset, fingerprint, len(keys), len(expanded), nodes)
    return BookData(header, array("Q", keys), values, flags, hts)


def short_lines(tree: Tree) -> int | None:
    """How many roots' main lines can still be made longer (None without main lines)."""
    if not tree.line_plies:
        return None
    return sum(1 for key in tree.roots if tree.line_is_short(key))


def load_tree(settings: Settings, directory: Path, w: float, ballot_priority: float,
              extra_roots: list[tuple[str, str]] = (),
              line_plies: int = 0) -> tuple[Tree, dict[int, str], list]:
    """The tree of a build log (no log: an empty tree), with its roots; also returns the
    roots not in the log yet (to be written)."""
    from hub_engine.book.keys import board_key
    from hub_engine.rules.position import Position

    contents = read_log(store.log_path(directory, settings.ruleset))
    tree = Tree(w, line_plies)
    if contents is not None:
        tree.load([(Position.from_hub(settings.ruleset, hub).board, s, d)
                   for hub, (s, d, _n) in contents.scored.items()])
    old = contents.roots if contents is not None else []
    known = {hub for hub, _label in old}
    new = [(hub, label) for hub, label in [*default_roots(settings.ruleset), *extra_roots]
           if hub not in known]
    roots: dict[int, str] = {}
    for hub, label in [*old, *new]:
        key = board_key(Position.from_hub(settings.ruleset, hub).board)
        base = 0.0 if label == START_LABEL else ballot_priority
        if tree.add_root(key, hub, label, base):
            roots[key] = hub
    return tree, roots, new


def build(settings: Settings, directory: Path | None = None, positions: int | None = None,
          total: int | None = None, w: float = DEFAULT_W,
          ballot_priority: float = DEFAULT_BALLOT_PRIORITY, extra_roots: list = (),
          line_plies: int = 0, workers: int = 1, scheduler=None, progress: bool | None = None,
          save_every: float = SAVE_EVERY, analyser=None) -> dict:
    """Score `positions` more positions (or up to `total` in all) and write the book file;
    returns the run's figures. line_plies > 0: make every root's main line that deep (the
    budget still bounds the run). KeyboardInterrupt: the book is written, then re-raised.
    analyser(task, limits) -> {"score", "depth", "nodes"} replaces the search (tests)."""
    from hub_engine.executors import connect, run_dask, run_inline, run_pool
    from hub_engine.rules.variants import get_variant

    directory = store.books_dir(directory)
    variant = get_variant(settings.ruleset)
    header = settings.header()
    client = connect(scheduler) if scheduler is not None else None    # fail before any work
    log = None
    try:
        log = WorkLog(store.log_path(directory, settings.ruleset), header)
        tree, roots, new_roots = load_tree(settings, directory, w, ballot_priority, extra_roots,
                                           line_plies)
        for hub, label in new_roots:
            log.root(hub, label)
        before = len(tree.nodes)
        target = total if total is not None else before + (positions or 0)
        jobs = Jobs(tree, roots, variant, target)
        limits = {"ruleset": settings.ruleset, "eval": settings.eval, "nodes": settings.nodes}
        if client is not None:
            stream = run_dask(jobs, run_job, (limits, analyser), client)
        elif workers <= 1:
            stream = run_inline(jobs, run_job, limits, analyser)
        else:
            stream = run_pool(jobs, run_job, (limits, analyser), workers)
        fp = int(header["fingerprint"], 16)
        book_file = store.book_path(directory, settings.ruleset)
        t0 = last_save = time.monotonic()
        busy = 0.0
        depths: list[int] = []
        nodes_used = 0
        from tqdm import tqdm

        bar = tqdm(total=max(0, target - before), unit="pos", desc=settings.ruleset,
                   disable=None if progress is None else not progress, file=sys.stderr,
                   smoothing=0.05)
        interrupted = False
        try:
            for task, res in stream:
                if "error" in res:
                    raise RuntimeError(f"scoring {task['position']} failed: {res['error']}")
                board = jobs.boards.pop(task["key"])
                log.scored(task["position"], res["score"], res["depth"], res["nodes"])
                tree.add_scored(board, res["score"], res["depth"])
                busy += res.get("cpu", 0.0)
                depths.append(res["depth"])
                nodes_used += res["nodes"]
                bar.update(1)
                if len(depths) % 100 == 0 and not bar.disable:
                    bar.set_postfix(expanded=tree.counts()["expanded"], refresh=False)
                if time.monotonic() - last_save > save_every:
                    write_book(book_file, book_data(tree, settings.ruleset, fp, settings.nodes))
                    last_save = time.monotonic()
        except KeyboardInterrupt:
            interrupted = True
        finally:
            bar.close()
            if hasattr(stream, "close"):
                stream.close()
        log.close()
        write_book(book_file, book_data(tree, settings.ruleset, fp, settings.nodes))
        elapsed = time.monotonic() - t0
        scored = len(depths)
        summary = {
            "ruleset": settings.ruleset, "time": time.strftime("%Y-%m-%d %H:%M:%S"),
            "settings": header, "w": w, "ballot_priority": ballot_priority,
            "workers": None if scheduler is not None else workers,
            "scheduler": scheduler if isinstance(scheduler, str) else None,
            "main_line": line_plies, "short_lines": short_lines(tree),
            "scored": scored, "total": len(tree.nodes), "expanded": tree.counts()["expanded"],
            "seconds": round(elapsed, 1), "cpu_seconds": round(busy, 1),
            "positions_per_hour": round(scored / elapsed * 3600) if elapsed > 0 else None,
            "positions_per_core_hour": round(scored / busy * 3600) if busy > 0 else None,
            "mean_depth": round(sum(depths) / scored, 2) if scored else None,
            "mean_nodes": round(nodes_used / scored) if scored else None,
            "interrupted": interrupted, "book": str(book_file),
        }
        runs = store.log_path(directory, settings.ruleset).with_suffix(".runs.jsonl")
        with open(runs, "a", encoding="utf-8") as f:
            f.write(json.dumps(summary, sort_keys=True) + "\n")
        if interrupted:
            raise KeyboardInterrupt
        return summary
    finally:
        if log is not None:
            log.close()
        if client is not None and client is not scheduler:
            client.close()
