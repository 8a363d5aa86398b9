"""`hub-engine book unpack`: turn a book file back into a build log, so that a book can grow
on a machine that does not have the log it was built from (the books shipped in the package).

The build's tree follows from its scored positions (hub_engine.book.worklog): a leaf's value is
its search's score and an expanded position's value the negamax of its children's. The book file
keeps every position's value by key, with a flag for the expanded ones, so walking from the roots
(the start position and the ballots, as a build takes them) through the expanded positions meets
every position with its value, and the log written from them loads into the same tree: the same
values, the same expanded positions, the same next expansions. What the file does not keep, each
search's depth and nodes, is written as 0 (they only feed a run's figures). Positions that hang
from no expanded position are left out and counted: the moves already scored of an expansion that
a killed build left unfinished (a resumed build scores them again), or the subtrees of roots from
`--ballots` files not given here.
"""
from __future__ import annotations

from collections import deque
from pathlib import Path

from hub_engine.book import store
from hub_engine.book.build import Settings, default_roots
from hub_engine.book.fileformat import EXPANDED, BookData
from hub_engine.book.keys import board_key
from hub_engine.book.tree import children_of
from hub_engine.book.worklog import write_log


def unpack(data: BookData, directory: Path, eval_name: str = "learned",
           extra_roots: list[tuple[str, str]] = ()) -> dict:
    """Write DIR/work/<rule-set>.log from a book (refused when that log exists); returns the
    counts: positions written, the book's entries, those no root reaches."""
    from hub_engine.rules.position import Position

    ruleset = data.header.ruleset
    path = store.log_path(directory, ruleset)
    if path.exists():
        raise ValueError(f"{path} exists: a build log is never overwritten (move it away, or "
                         "give another --dir)")
    settings = Settings(ruleset, data.header.nodes, eval_name).header()
    if int(settings["fingerprint"], 16) != data.header.fingerprint:
        raise ValueError(f"the book was built for other {ruleset} rules (fingerprint "
                         f"{data.header.fingerprint:08x}, these rules {settings['fingerprint']})")
    index = {key: i for i, key in enumerate(data.keys)}
    roots = [*default_roots(ruleset), *extra_roots]
    scored: dict[str, tuple[int, int, int]] = {}
    seen: set[int] = set()
    todo = deque(Position.from_hub(ruleset, hub).board for hub, _label in roots)
    while todo:
        board = todo.popleft()
        key = board_key(board)
        if key in seen or key not in index:
            continue
        seen.add(key)
        i = index[key]
        scored[Position(ruleset, board).hub()] = (data.values[i], 0, 0)
        if data.flags[i] & EXPANDED:
            for child_key, child in children_of(board):
                if child_key not in index:
                    raise ValueError(f"damaged book: the expanded position "
                                     f"{Position(ruleset, board).hub()} lacks a move's position")
                todo.append(child)
    write_log(path, settings, roots, scored)
    return {"ruleset": ruleset, "written": len(scored), "entries": len(data.keys),
            "unreached": len(data.keys) - len(scored), "log": str(path)}
