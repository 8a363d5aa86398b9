"""Where books live: --dir, the Hub parameter book-path, $HUB_ENGINE_BOOKS, or the per-user data
directory that platformdirs chooses (e.g. ~/.local/share/hub-engine/books on Linux); then the
books shipped inside the package (hub_engine/book/data/<rule-set>.book.xz).

Inside a books directory: <rule-set>.book (the book the engine reads) and work/<rule-set>.log
(the build's log of scored positions, from which a build resumes).
"""
from __future__ import annotations

import os
from pathlib import Path

from hub_engine.datafiles import chosen_dir, user_dir

ENV_VAR = "HUB_ENGINE_BOOKS"


def default_dir() -> Path:
    return user_dir("books")


def books_dir(explicit: str | os.PathLike | None = None) -> Path:
    """The books directory: explicit, else $HUB_ENGINE_BOOKS, else the user data directory."""
    return chosen_dir(explicit, ENV_VAR, "books")


def packaged_dir() -> Path:
    return Path(__file__).resolve().parent / "data"


def book_path(directory: Path, ruleset: str) -> Path:
    return Path(directory) / f"{ruleset}.book"


def log_path(directory: Path, ruleset: str) -> Path:
    return Path(directory) / "work" / f"{ruleset}.log"


def packaged_path(ruleset: str) -> Path:
    return packaged_dir() / f"{ruleset}.book.xz"
