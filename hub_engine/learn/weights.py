"""Weight files of the learned evaluation, and the choice of evaluation a Searcher gets.

Format (version 1), little-endian, read with struct/zlib/array only (no numpy, so the engine and
the one-file executable load it):

    b"HUBW"            4 bytes, magic
    version            uint16 (1)
    header length      uint32
    header             UTF-8 JSON: variant, shape (windows, tables, entries, scalars, phases,
                       res, phase_men), scalars (feature names in order), crc32 and size of the
                       raw payload, notes (how the weights were made)
    payload            zlib-compressed int16 values: tables[8][6561][2], then scalars[14][2]
                       (the pair is middlegame, endgame; units 1/res of a centi-man)

A file whose magic, version, shape, feature names or checksum do not match is refused with a
ValueError that names the file and what is wrong.
"""
from __future__ import annotations

import json
import os
import struct
import sys
import zlib
from array import array
from pathlib import Path

MAGIC = b"HUBW"
VERSION = 1
_HEAD = struct.Struct("<4sHI")
DATA_DIR = Path(__file__).resolve().parent.parent / "data"
EVAL_KINDS = ("learned", "hand")
# rule-sets that share weights: spanish plays by the portuguese rules
WEIGHT_VARIANT = {"spanish": "portuguese"}


def weight_variant(variant: str) -> str:
    """The rule-set whose weights a variant uses."""
    return WEIGHT_VARIANT.get(variant, variant)


WEIGHTS_DIR_ENV = "HUB_ENGINE_WEIGHTS_DIR"


def shipped_path(variant: str) -> Path:
    """The learned weights of a variant: in $HUB_ENGINE_WEIGHTS_DIR when set (to try new weights
    in a match before shipping them), else the package's data directory."""
    directory = os.environ.get(WEIGHTS_DIR_ENV) or DATA_DIR
    return Path(directory) / f"learned-{weight_variant(variant)}.bin"


def encode(variant: str, values, notes: dict | None = None) -> bytes:
    """A weight file's bytes from the flat int16 values (any sequence of ints)."""
    from hub_engine.core import LEARNED_SCALARS, LEARNED_SHAPE

    arr = array("h", values)
    want = (LEARNED_SHAPE["tables"] * LEARNED_SHAPE["entries"] + LEARNED_SHAPE["scalars"]) * 2
    if len(arr) != want:
        raise ValueError(f"learned weights need {want} values, got {len(arr)}")
    if sys.byteorder == "big":
        arr.byteswap()
    raw = arr.tobytes()
    header = json.dumps({"variant": weight_variant(variant), "shape": LEARNED_SHAPE,
                         "scalars": list(LEARNED_SCALARS), "crc32": zlib.crc32(raw),
                         "size": len(raw), "notes": notes or {}}, sort_keys=True).encode()
    return _HEAD.pack(MAGIC, VERSION, len(header)) + header + zlib.compress(raw, 9)


def decode(data: bytes, name: str = "weights") -> tuple[dict, bytes]:
    """(header, raw little-endian int16 payload) of a weight file's bytes; ValueError if bad."""
    from hub_engine.core import LEARNED_SCALARS, LEARNED_SHAPE

    if len(data) < _HEAD.size:
        raise ValueError(f"{name}: not a weight file (too short)")
    magic, version, hlen = _HEAD.unpack_from(data)
    if magic != MAGIC:
        raise ValueError(f"{name}: not a weight file (bad magic)")
    if version != VERSION:
        raise ValueError(f"{name}: weight format version {version}, this engine reads {VERSION}")
    try:
        header = json.loads(data[_HEAD.size:_HEAD.size + hlen])
        raw = zlib.decompress(data[_HEAD.size + hlen:])
    except (ValueError, zlib.error) as exc:
        raise ValueError(f"{name}: damaged weight file ({exc})") from None
    if header.get("shape") != LEARNED_SHAPE or header.get("scalars") != list(LEARNED_SCALARS):
        raise ValueError(f"{name}: weights of another shape or feature set than this engine's")
    if len(raw) != header.get("size") or zlib.crc32(raw) != header.get("crc32"):
        raise ValueError(f"{name}: checksum mismatch (damaged weight file)")
    return header, raw


def read_values(path) -> tuple[dict, array]:
    """(header, int16 array in native order) of a weight file."""
    header, raw = decode(Path(path).read_bytes(), str(path))
    arr = array("h")
    arr.frombytes(raw)
    if sys.byteorder == "big":
        arr.byteswap()
    return header, arr


_CACHE: dict[tuple, object] = {}       # (path, mtime) -> PatternWeights


def pattern_weights(path, variant: str | None = None):
    """The core's PatternWeights for a weight file (cached by path and modification time)."""
    from hub_engine.core import PatternWeights

    p = Path(path)
    try:
        key = (str(p.resolve()), p.stat().st_mtime_ns)
    except OSError as exc:
        raise ValueError(f"cannot read weight file {path}: {exc.strerror}") from None
    if key not in _CACHE:
        header, arr = read_values(p)
        if variant is not None and header["variant"] != weight_variant(variant):
            raise ValueError(f"{path}: weights for {header['variant']}, not {variant}")
        _CACHE[key] = PatternWeights(arr.tobytes())     # native order, as the core copies it
    return _CACHE[key]


def evaluation(variant: str, kind: str = "learned") -> dict:
    """The weights dict a Searcher takes: `hand` (hub_engine/data/eval.json), `learned` (the
    shipped weights of the variant; the hand-set ones, with a warning, if none are installed)
    or the path of a weight file."""
    from hub_engine.core import eval_weights

    weights = eval_weights(variant)
    if kind == "hand":
        return weights
    path = shipped_path(variant) if kind == "learned" else Path(kind)
    if kind == "learned" and not path.exists():
        from loguru import logger

        logger.warning("no learned weights for {} in this installation: hand-set evaluation",
                       variant)
        return weights
    return {**weights, "learned": pattern_weights(path, variant)}
