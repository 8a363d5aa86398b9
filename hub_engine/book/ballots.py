"""The balloted openings a rule-set's book covers besides the start position.

The sets are those pydraughts 0.6.7 ships (`draughts.ballots.Ballots`, files in
draughts/ballot_files/; the 11-man english and italian ballots are Ed Gilbert's, from KingsRow):

    english   3move_english.json (174) and 11_english.json (2500)
    italian   11_italian.json (2400)
    russian   russian.json (745)
    brazilian brazilian.json (736)

portuguese (and spanish) have no ballot set. They are converted once into the text files of
hub_engine/book/data/ballots/ (one ballot a line: Hub position string, `standard` or `lost` as
the source lists it, then its name), so the engine never imports pydraughts. To regenerate them
(pydraughts installed): `python -m hub_engine.book.ballots`; every position is checked to have
the same legal moves in both programs.
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent / "data" / "ballots"
SETS: dict[str, tuple[tuple[str, str, str], ...]] = {
    # rule-set: ((set name, pydraughts variant, pydraughts file), ...)
    "english": (("english-3move", "english", "3move_english.json"),
                ("english-11man", "english", "11_english.json")),
    "italian": (("italian-11man", "italian", "11_italian.json"),),
    "russian": (("russian", "russian", "russian.json"),),
    "brazilian": (("brazilian", "brazilian", "brazilian.json"),),
    "portuguese": (),
}


@dataclass(frozen=True)
class Ballot:
    set: str          # e.g. english-3move
    name: str         # the source's name, e.g. "001 09-13 21-17 05-09"
    position: str     # Hub position string
    lost: bool        # listed by the source as lost for one side


def ballot_sets(ruleset: str) -> list[str]:
    return [name for name, _v, _f in SETS.get(ruleset, ())]


def read_set(set_name: str, path: Path | None = None) -> list[Ballot]:
    """The ballots of a packaged set (or of a file in the same format)."""
    path = path or DATA_DIR / f"{set_name}.txt"
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        try:
            position, kind, name = line.split("\t", 2)
        except ValueError:
            raise ValueError(f"{path}: bad ballot line {line[:60]!r}") from None
        out.append(Ballot(set_name, name, position, kind == "lost"))
    return out


def set_positions(ruleset: str, set_name: str, lost: bool = False) -> list[tuple[str, str]]:
    """(name, Hub position) of a set's ballots, each position once (russian and brazilian list a
    few transpositions twice), without those listed as lost unless lost. ValueError, naming
    the rule-set's sets, for a set it does not have."""
    sets = ballot_sets(ruleset)
    if set_name not in sets:
        raise ValueError(f"{ruleset} has no ballot set {set_name!r} (its sets: "
                         f"{', '.join(sets) if sets else 'none'})")
    found: dict[str, str] = {}
    for b in read_set(set_name):
        if (lost or not b.lost) and b.position not in found:
            found[b.position] = b.name
    return [(name, position) for position, name in found.items()]


def ballots(ruleset: str) -> list[Ballot]:
    """Every ballot of a rule-set's sets (none for portuguese)."""
    return [b for s in ballot_sets(ruleset) for b in read_set(s)]


def convert(set_name: str, variant: str, filename: str) -> list[str]:
    """The data file's lines for one pydraughts ballot file (needs pydraughts)."""
    import draughts
    from draughts import Board

    from hub_engine.rules.position import Position

    source = Path(draughts.__file__).resolve().parent / "ballot_files" / filename
    data = json.loads(source.read_text(encoding="utf-8"))
    lost = set(data.get("lost", []))
    lines = [f"# {set_name}: {len(data['all'])} ballots from pydraughts "
             f"{getattr(draughts, '__version__', '0.6.7')}, draughts/ballot_files/{filename}",
             "# Hub position<TAB>standard|lost<TAB>name (hub_engine/book/ballots.py)"]
    for name, fen in data["all"].items():
        pos = Position.from_fen(variant, fen)
        theirs = sorted(m.hub_move for m in Board(variant=variant, fen=fen).legal_moves())
        ours = sorted(m.hub() for m in pos.legal_moves())
        if theirs != ours:
            raise ValueError(f"{filename} {name}: legal moves differ ({theirs} / {ours})")
        lines.append(f"{pos.hub()}\t{'lost' if name in lost else 'standard'}\t{name}")
    return lines


def main() -> int:
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    for sets in SETS.values():
        for set_name, variant, filename in sets:
            lines = convert(set_name, variant, filename)
            (DATA_DIR / f"{set_name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
            print(f"{set_name}: {len(lines) - 2} ballots", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
