"""Copy the built books into the package: `python -m hub_engine.book.package [--dir DIR]`.

Each <rule-set>.book of the books directory (default as `hub-engine book build` writes them) is
checked and stored xz-compressed as hub_engine/book/data/<rule-set>.book.xz, so that a fresh
install, and the one-file executable, play from the books without a build. A book over
MAX_BYTES compressed is not shipped (the build command makes it instead; docs/book.md).
"""
from __future__ import annotations

import argparse
import sys

from hub_engine.book import store
from hub_engine.book.fileformat import read_book, rules_fingerprint, write_book
from hub_engine.rules.variants import get_variant
from hub_engine.tables.slices import RULESETS

MAX_BYTES = 5 * 1024 * 1024


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hub_engine.book.package")
    p.add_argument("--dir", help="books directory (default: as `hub-engine book build`)")
    args = p.parse_args(argv)
    directory = store.books_dir(args.dir)
    for rs in RULESETS:
        source = store.book_path(directory, rs)
        if not source.exists():
            print(f"{rs}: no book in {directory}", file=sys.stderr)
            continue
        data = read_book(source, ruleset=rs, fingerprint=rules_fingerprint(
            get_variant(rs).core_rules))
        dest = store.packaged_path(rs)
        write_book(dest, data)
        size = dest.stat().st_size
        if size > MAX_BYTES:
            dest.unlink()
            print(f"{rs}: {size} bytes compressed, over {MAX_BYTES}: not shipped", file=sys.stderr)
            continue
        print(f"{rs}: {data.header.entries} positions, {data.header.expanded} expanded, "
              f"{source.stat().st_size} bytes, {size} bytes compressed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
