"""Weight files of the learned evaluation, and the choice of evaluation a Searcher gets.

Format (version 1, or 2 with ending values), little-endian, read with struct/zlib/array only (no
numpy, so the engine and the one-file executable load it):

    b"HUBW"            4 bytes, magic
    version            uint16 (1, or 2 when the file holds ending values)
    header length      uint32
    header             UTF-8 JSON: variant, shape (windows, tables, entries, scalars, phases,
                       res, phase_men), scalars (feature names in order), crc32 and size of the
                       raw payload, notes (how the weights were made); version 2 adds endings
                       (the shape of the ending values: pieces, men_cap, king_cap, entries, kind)
    payload            zlib-compressed int16 values: tables[8][6561][2], then scalars[14][2]
                       (the pair is middlegame, endgame; units 1/res of a centi-man); version 2
                       then the ending values[entries] (centi-men; see learned.pxi)

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
VERSION = 2                      # written when a file holds ending values, else 1
VERSIONS = (1, 2)
_HEAD = struct.Struct("<4sHI")
DATA_DIR = Path(__file__).resolve().parent.parent / "data"
# learned: the shipped weights with their ending values; hand: eval.json; learned-vN: the N-th
# generation of learned weights (its patterns, without ending values), kept for comparison once
# the shipped weights have moved on (kind -> its folder of DATA_DIR); the kinds a Hub client may
# choose list them after learned and hand, so a new generation is one entry here
GENERATIONS = {"learned-v1": "v1", "learned-v2": "v2", "learned-v3": "v3"}
EVAL_KINDS = ("learned", "hand", *GENERATIONS)
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


def _values_count() -> int:
    from hub_engine.core import LEARNED_SHAPE

    return (LEARNED_SHAPE["tables"] * LEARNED_SHAPE["entries"] + LEARNED_SHAPE["scalars"]) * 2


def encode(variant: str, values, notes: dict | None = None, endings=None) -> bytes:
    """A weight file's bytes from the flat int16 values (any sequence of ints) and, optionally,
    the ending values (ENDING_SHAPE["entries"] ints; the file is then version 2)."""
    from hub_engine.core import ENDING_SHAPE, LEARNED_SCALARS, LEARNED_SHAPE

    arr = array("h", values)
    want = _values_count()
    if len(arr) != want:
        raise ValueError(f"learned weights need {want} values, got {len(arr)}")
    head = {"variant": weight_variant(variant), "shape": LEARNED_SHAPE,
            "scalars": list(LEARNED_SCALARS), "notes": notes or {}}
    if endings is not None:
        ends = array("h", endings)
        if len(ends) != ENDING_SHAPE["entries"]:
            raise ValueError(f"ending values need {ENDING_SHAPE['entries']} values, got {len(ends)}")
        arr.extend(ends)
        head["endings"] = ENDING_SHAPE
    if sys.byteorder == "big":
        arr.byteswap()
    raw = arr.tobytes()
    head.update(crc32=zlib.crc32(raw), size=len(raw))
    header = json.dumps(head, sort_keys=True).encode()
    version = VERSION if endings is not None else 1
    return _HEAD.pack(MAGIC, version, len(header)) + header + zlib.compress(raw, 9)


def decode(data: bytes, name: str = "weights") -> tuple[dict, bytes]:
    """(header, raw little-endian int16 payload) of a weight file's bytes; ValueError if bad."""
    from hub_engine.core import ENDING_SHAPE, LEARNED_SCALARS, LEARNED_SHAPE

    if len(data) < _HEAD.size:
        raise ValueError(f"{name}: not a weight file (too short)")
    magic, version, hlen = _HEAD.unpack_from(data)
    if magic != MAGIC:
        raise ValueError(f"{name}: not a weight file (bad magic)")
    if version not in VERSIONS:
        raise ValueError(f"{name}: weight format version {version}, this engine reads "
                         f"{' and '.join(map(str, VERSIONS))}")
    try:
        header = json.loads(data[_HEAD.size:_HEAD.size + hlen])
        raw = zlib.decompress(data[_HEAD.size + hlen:])
    except (ValueError, zlib.error) as exc:
        raise ValueError(f"{name}: damaged weight file ({exc})") from None
    if header.get("shape") != LEARNED_SHAPE or header.get("scalars") != list(LEARNED_SCALARS):
        raise ValueError(f"{name}: weights of another shape or feature set than this engine's")
    if (version >= 2) != ("endings" in header) or header.get("endings", ENDING_SHAPE) != ENDING_SHAPE:
        raise ValueError(f"{name}: ending values of another shape than this engine's")
    if len(raw) != header.get("size") or zlib.crc32(raw) != header.get("crc32"):
        raise ValueError(f"{name}: checksum mismatch (damaged weight file)")
    want = 2 * (_values_count() + (ENDING_SHAPE["entries"] if "endings" in header else 0))
    if len(raw) != want:
        raise ValueError(f"{name}: {len(raw)} bytes of weights, expected {want}")
    return header, raw


def _native(raw: bytes) -> array:
    arr = array("h")
    arr.frombytes(raw)
    if sys.byteorder == "big":
        arr.byteswap()
    return arr


def read_weights(path) -> tuple[dict, array, array | None]:
    """(header, pattern and scalar values, ending values or None) of a weight file, int16 arrays
    in native order."""
    header, raw = decode(Path(path).read_bytes(), str(path))
    n = 2 * _values_count()
    return header, _native(raw[:n]), (_native(raw[n:]) if "endings" in header else None)


def read_values(path) -> tuple[dict, array]:
    """(header, int16 array in native order) of a weight file's patterns and scalars."""
    header, values, _endings = read_weights(path)
    return header, values


_CACHE: dict[tuple, tuple] = {}       # (path, mtime) -> (PatternWeights, EndingValues | None)


def pattern_weights(path, variant: str | None = None):
    """The core's (PatternWeights, EndingValues or None) for a weight file (cached by path and
    modification time)."""
    from hub_engine.core import EndingValues, PatternWeights

    p = Path(path)
    try:
        key = (str(p.resolve()), p.stat().st_mtime_ns)
    except OSError as exc:
        raise ValueError(f"cannot read weight file {path}: {exc.strerror}") from None
    if key not in _CACHE:
        header, values, endings = read_weights(p)
        if variant is not None and header["variant"] != weight_variant(variant):
            raise ValueError(f"{path}: weights for {header['variant']}, not {variant}")
        # native order, as the core copies it
        _CACHE[key] = (PatternWeights(values.tobytes()),
                       EndingValues(endings.tobytes()) if endings is not None else None)
    return _CACHE[key]


def generation_path(variant: str, kind: str) -> Path:
    """The weight file of an earlier generation (`learned-vN`): DATA_DIR/vN/ when the shipped
    weights have moved on since that generation, else the shipped file itself (the rule-set's
    weights are still of that generation, or an earlier one)."""
    old = DATA_DIR / GENERATIONS[kind] / f"learned-{weight_variant(variant)}.bin"
    return old if old.exists() else shipped_path(variant)


def v1_path(variant: str) -> Path:
    """The first learned evaluation's weight file (generation_path)."""
    return generation_path(variant, "learned-v1")


def evaluation(variant: str, kind: str = "learned") -> dict:
    """The weights dict a Searcher takes: `hand` (hub_engine/data/eval.json), `learned` (the
    shipped weights of the variant with their ending values; the hand-set ones, with a warning,
    if none are installed), `learned-vN` (an earlier generation, one of GENERATIONS: its
    patterns without ending values) or the path of a weight file."""
    from hub_engine.core import eval_weights

    weights = eval_weights(variant)
    if kind == "hand":
        return weights
    if kind == "learned":
        path = shipped_path(variant)
    elif kind in GENERATIONS:
        path = generation_path(variant, kind)
    else:
        path = Path(kind)
    if (kind == "learned" or kind in GENERATIONS) and not path.exists():
        from loguru import logger

        logger.warning("no learned weights for {} in this installation: hand-set evaluation",
                       variant)
        return weights
    patterns, endings = pattern_weights(path, variant)
    if kind in GENERATIONS or endings is None:
        return {**weights, "learned": patterns}
    return {**weights, "learned": patterns, "endings": endings}
