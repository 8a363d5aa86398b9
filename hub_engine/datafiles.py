"""Where the engine's generated data lives and how its files are read, shared by the endgame
tables and the opening books: a directory given explicitly, else an environment variable, else
the per-user data directory platformdirs chooses (e.g. ~/.local/share/hub-engine/<kind> on
Linux); a file may be shipped xz-compressed beside or instead of its plain form."""
from __future__ import annotations

import lzma
import os
from pathlib import Path


def user_dir(kind: str) -> Path:
    """The per-user data directory of one kind of data ("tables", "books")."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("hub-engine", appauthor=False)) / kind


def chosen_dir(explicit: str | os.PathLike | None, env_var: str, kind: str) -> Path:
    """explicit (a command-line option or Hub parameter), else $env_var, else user_dir(kind)."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get(env_var)
    if env:
        return Path(env).expanduser()
    return user_dir(kind)


def existing(path: Path) -> Path | None:
    """path, or its xz-compressed twin path.xz (how the package ships its data)."""
    if path.exists():
        return path
    xz = path.with_name(path.name + ".xz")
    return xz if xz.exists() else None


def write_atomically(path: Path, *chunks: bytes, make_dirs: bool = True) -> None:
    """Write chunks to path so that a reader never sees half a file: a temporary file beside
    it, flushed to disk, then renamed over it. make_dirs=False for a user's output path, where
    a missing directory is the user's error (OSError), not something to create."""
    if make_dirs:
        path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "wb") as f:
        for chunk in chunks:
            f.write(chunk)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def read_bytes(path: Path, error: type[Exception]) -> bytes:
    """A whole file's bytes, decompressed when it ends in .xz; `error` says what went wrong."""
    try:
        raw = path.read_bytes()
        if path.suffix == ".xz":
            raw = lzma.decompress(raw)
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror or exc})") from None
    except lzma.LZMAError:
        raise error(f"{path}: damaged (not a valid xz stream)") from None
    return raw
