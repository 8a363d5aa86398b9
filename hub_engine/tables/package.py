"""Regenerate the tables shipped with the package: `python -m hub_engine.tables.package`.

Builds every rule-set up to PACKAGED_PIECES pieces in a temporary directory and stores the
win/draw/loss files and the kings-only distance files xz-compressed in hub_engine/tables/data/
(about 1.3 MB for the five rule-sets), so that a fresh install, and the one-file executable, play
exact endings of up to 4 pieces without a build. The distances of slices with men would more than
triple that, for endings a search of a few plies already converts; `tables build` makes them.
Run it after any change to the generator or the file format.
"""
from __future__ import annotations

import lzma
import shutil
import sys
import tempfile
from pathlib import Path

from hub_engine.tables.build import build
from hub_engine.tables.slices import RULESETS, Material
from hub_engine.tables.store import packaged_dir

PACKAGED_PIECES = 4


def main() -> int:
    out = packaged_dir()
    with tempfile.TemporaryDirectory() as tmp:
        for rs in RULESETS:
            build(rs, PACKAGED_PIECES, Path(tmp), progress=False)
            shutil.rmtree(out / rs, ignore_errors=True)
            for kind in ("wld", "dtc"):
                for f in sorted((Path(tmp) / rs / kind).glob("*.tb")):
                    if kind == "dtc" and not Material.parse(f.stem).kings_only:
                        continue
                    dest = out / rs / kind / (f.name + ".xz")
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    dest.write_bytes(lzma.compress(f.read_bytes(), preset=9 | lzma.PRESET_EXTREME))
            print(f"{rs}: {sum(p.stat().st_size for p in (out / rs).rglob('*.xz'))} bytes",
                  file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
