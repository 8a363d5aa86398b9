"""The players, result and event of each analysed game, from the PDN tags of its file.

Analysis records name their game as `FILE#N` (the N-th game of FILE, FILE as it was given to
`hub-engine analyse`) but do not carry the tags, so the report reads them from the PDN file with
the same reader the analysis used (the same game numbers). A record may also carry them itself
(`white`, `black`, `result`, `event`, `date`, `site`, `round`, or a `tags` object): those win.
"""
from __future__ import annotations

import os
from typing import Iterable

from hub_engine.rules import pdn
from hub_engine.rules.pdn import PdnGame

SHOWN_TAGS = ("White", "Black", "Result", "Event", "Site", "Date", "Round")
RECORD_FIELDS = {name.lower(): name for name in SHOWN_TAGS}


def split_game_id(game: str) -> tuple[str, str, int] | None:
    """(kind, file, number) of a record's game id: ('pdn', FILE, N) for `FILE#N`, ('lines', FILE,
    L) for `FILE:L`; None for an id of another form."""
    for sep, kind in (("#", "pdn"), (":", "lines")):
        file, found, number = game.rpartition(sep)
        if found and file and number.isdigit():
            return kind, file, int(number)
    return None


def tags_of_games(games: Iterable[PdnGame]) -> dict[str, dict[str, str]]:
    """Tags by game id of games already read (what `analyse` holds after reading its inputs)."""
    out = {}
    for g in games:
        tags = {k: v for k, v in g.tags.items() if k in SHOWN_TAGS}
        if "Result" not in tags and g.result:
            tags["Result"] = g.result
        out[f"{g.file}#{g.number}"] = tags
    return out


def record_tags(rec: dict) -> dict[str, str]:
    """Tags a record carries itself (none today; a later analysis may add them)."""
    tags = {}
    if isinstance(rec.get("tags"), dict):
        tags.update({k: str(v) for k, v in rec["tags"].items() if k in SHOWN_TAGS})
    for field, name in RECORD_FIELDS.items():
        if isinstance(rec.get(field), (str, int, float)) and not isinstance(rec.get(field), bool):
            tags[name] = str(rec[field])
    return tags


def find_pdn(file: str, search_dirs: Iterable[str], given: Iterable[str]) -> str | None:
    """The readable path of a game file named in the records: a `given` file with that name (or
    base name), else the name itself, else the name or its base name in each search directory."""
    given = list(given)
    for path in given:
        if os.path.normpath(path) == os.path.normpath(file):
            return path
    for path in given:
        if os.path.basename(path) == os.path.basename(file):
            return path
    candidates = [file]
    for d in search_dirs:
        candidates += [os.path.join(d, file), os.path.join(d, os.path.basename(file))]
    for path in candidates:
        if os.path.isfile(path):
            return path
    return None


def read_tags(files: Iterable[str], search_dirs: Iterable[str] = (), given: Iterable[str] = (),
              default_variant: str = "brazilian") -> tuple[dict[str, dict[str, str]], list[str]]:
    """Tags by game id for the games of the named PDN files, and a warning per file not found or
    not readable (the report then shows those games without names)."""
    tags: dict[str, dict[str, str]] = {}
    warnings = []
    search_dirs, given = list(search_dirs), list(given)
    for file in sorted(set(files)):
        path = find_pdn(file, search_dirs, given)
        if path is None:
            warnings.append(f"{file}: not found, so its games are shown without players and "
                            f"result (give it with --pdn)")
            continue
        try:
            for gid, t in tags_of_games(pdn.iter_pdn_file(path, default_variant)).items():
                tags[f"{file}#{gid.rpartition('#')[2]}"] = t
        except OSError as exc:
            warnings.append(f"{file}: cannot read {path}: {exc.strerror or exc}")
    return tags, warnings
