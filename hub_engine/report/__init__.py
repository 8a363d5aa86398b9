"""Game reports: the analysis records of `hub-engine analyse` as one HTML page to look at.

    >>> from hub_engine.report import write_report
    >>> write_report(records, "report.html")          # records: dicts, as in the JSON Lines

Per game: players and result (PDN tags), an evaluation graph, the board at every move, the best
line and the loss of each played move, the inaccuracies, mistakes and blunders; a summary across
all games per player. The page is self-contained (no network) and the same records give the
same bytes. `hub-engine report` is the command line (hub_engine.report.command).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import IO, Iterable, Mapping

from hub_engine.datafiles import write_atomically
from hub_engine.report.records import check_record, collections
from hub_engine.report.tags import read_tags, record_tags, split_game_id, tags_of_games

__all__ = ["build_report", "write_report", "tags_of_games"]


def build_report(records: Iterable[dict], tags: Mapping[str, Mapping[str, str]] | None = None,
                 title: str = "Analysis report", search_dirs: Iterable[str] = (),
                 pdn_files: Iterable[str] = ()) -> tuple[str, list[str]]:
    """The report page as text, and warnings (game files whose tags could not be read).

    records: analysis records (RecordError for one that cannot be shown). tags: PDN tags by
    game id (`FILE#N`); None reads them from the PDN files the records name, looked for as named,
    then in `search_dirs`, `pdn_files` giving paths to use first. Tags a record carries win.
    """
    from hub_engine.report.page import render

    records = [check_record(r) for r in records]
    cols = collections(records)
    own: dict[str, dict[str, str]] = {}
    for rec in records:
        t = record_tags(rec)
        if t:
            own.setdefault(rec["game"], {}).update(t)
    warnings: list[str] = []
    if tags is None:        # the game files of the games whose records do not name the players
        files = {c.file for c in cols if c.kind == "game" and split_game_id(c.id)
                 and not {"White", "Black"} <= own.get(c.id, {}).keys()}
        found, warnings = read_tags(files, search_dirs, pdn_files,
                                    next((c.variant for c in cols), "brazilian"))
    else:
        found = {k: dict(v) for k, v in tags.items()}
    for gid, t in own.items():
        found.setdefault(gid, {}).update(t)
    return render(cols, found, title), warnings


def write_report(records: Iterable[dict], out_path: str | os.PathLike | IO[str],
                 tags: Mapping[str, Mapping[str, str]] | None = None,
                 title: str = "Analysis report", search_dirs: Iterable[str] = (),
                 pdn_files: Iterable[str] = ()) -> list[str]:
    """Write the report page (see build_report) to a path or an open text file; the warnings.

    A path is written through a temporary file and renamed, so a reader never sees half a page.
    """
    text, warnings = build_report(records, tags, title, search_dirs, pdn_files)
    if hasattr(out_path, "write"):
        out_path.write(text)
        return warnings
    write_atomically(Path(os.fspath(out_path)), text.encode("utf-8"), make_dirs=False)
    return warnings
