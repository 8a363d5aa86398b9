"""The book file: a fixed header, then the entries sorted by key, under one checksum.

Header (little-endian, 64 bytes): magic ``HUBBOOK1``, format version, rule-set name, a
fingerprint of the rules (every rule field, draw counters included), the number of entries and
of expanded entries, the node budget of the scoring searches, the CRC-32 of the payload, then the
CRC-32 of the header itself. Payload, n entries in four arrays: keys (uint64,
ascending; hub_engine.book.keys), values (int16, the side to move's view, core units: a man =
100), flags (uint8, bit 0: expanded, i.e. every move of the position is in the book) and heights
(uint8, how many plies the book's best line goes on below the position).

A file whose size, checksums, version or rules do not match is refused with a BookFileError that
says why: a damaged book is never trusted. Like the endgame tables, the books shipped in the
package are the same files compressed with xz (<rule-set>.book.xz).
"""
from __future__ import annotations

import json
import lzma
import struct
import sys
import zlib
from array import array
from dataclasses import dataclass
from pathlib import Path

from hub_engine.datafiles import existing, read_bytes, write_atomically

MAGIC = b"HUBBOOK1"
VERSION = 1
_HEAD = struct.Struct("<8sHH16sIQQQI")
_CRC = struct.Struct("<I")
HEADER_SIZE = _HEAD.size + _CRC.size    # 64: the keys stay 8-byte aligned
ENTRY_SIZE = 12
EXPANDED = 1


class BookFileError(ValueError):
    """A book file that is missing, truncated, damaged or made for other rules."""


def rules_fingerprint(core_rules) -> int:
    """CRC-32 of every rule field (moves and draw counters): the scores depend on all of them."""
    return zlib.crc32(json.dumps(core_rules.as_dict(), sort_keys=True).encode())


@dataclass(frozen=True)
class Header:
    ruleset: str
    fingerprint: int
    entries: int
    expanded: int
    nodes: int                 # node budget of the scoring searches
    payload_crc: int = 0


@dataclass(frozen=True)
class BookData:
    header: Header
    keys: array                # 'Q', ascending
    values: array              # 'h'
    flags: bytes
    heights: bytes


def _native(arr: array) -> bytes:
    if sys.byteorder == "big":
        arr = array(arr.typecode, arr)
        arr.byteswap()
    return arr.tobytes()


def encode(data: BookData) -> bytes:
    h = data.header
    n = len(data.keys)
    if not (len(data.values) == len(data.flags) == len(data.heights) == n == h.entries):
        raise ValueError("book arrays of different lengths")
    payload = _native(data.keys) + _native(data.values) + bytes(data.flags) + bytes(data.heights)
    head = _HEAD.pack(MAGIC, VERSION, 0, h.ruleset.encode().ljust(16, b"\0"), h.fingerprint,
                      h.entries, h.expanded, h.nodes, zlib.crc32(payload))
    head += _CRC.pack(zlib.crc32(head))
    return head + b"\0" * (HEADER_SIZE - len(head)) + payload


def write_book(path: Path, data: BookData, compress: bool | None = None) -> None:
    """Write atomically (temporary file, fsync, rename); xz-compressed when the name ends in
    .xz (or compress is true)."""
    path = Path(path)
    raw = encode(data)
    if compress or (compress is None and path.suffix == ".xz"):
        raw = lzma.compress(raw, preset=9 | lzma.PRESET_EXTREME)
    write_atomically(path, raw)


def decode(raw: bytes, name: str) -> BookData:
    """Check and split a book file's bytes (BookFileError says what is wrong)."""
    if len(raw) < HEADER_SIZE:
        raise BookFileError(f"{name}: truncated ({len(raw)} bytes, the header needs {HEADER_SIZE})")
    magic, version, _res, ruleset, fp, entries, expanded, nodes, crc = _HEAD.unpack_from(raw)
    if magic != MAGIC:
        raise BookFileError(f"{name}: not a hub-engine book file")
    if _CRC.unpack_from(raw, _HEAD.size)[0] != zlib.crc32(raw[:_HEAD.size]):
        raise BookFileError(f"{name}: damaged header (checksum mismatch)")
    if version != VERSION:
        raise BookFileError(f"{name}: book format version {version}, this engine reads {VERSION}")
    if len(raw) != HEADER_SIZE + ENTRY_SIZE * entries:
        raise BookFileError(f"{name}: truncated or padded ({len(raw)} bytes, expected "
                            f"{HEADER_SIZE + ENTRY_SIZE * entries})")
    payload = memoryview(raw)[HEADER_SIZE:]
    if zlib.crc32(payload) != crc:
        raise BookFileError(f"{name}: damaged data (checksum mismatch)")
    keys, values = array("Q"), array("h")
    keys.frombytes(payload[:8 * entries])
    values.frombytes(payload[8 * entries:10 * entries])
    if sys.byteorder == "big":
        keys.byteswap()
        values.byteswap()
    flags = bytes(payload[10 * entries:11 * entries])
    heights = bytes(payload[11 * entries:])
    if any(keys[i] >= keys[i + 1] for i in range(entries - 1)):
        raise BookFileError(f"{name}: keys out of order")
    header = Header(ruleset.rstrip(b"\0").decode("ascii", "replace"), fp, entries, expanded,
                    nodes, crc)
    return BookData(header, keys, values, flags, heights)


def read_book(path: Path, *, ruleset: str, fingerprint: int) -> BookData:
    """Read and check a whole book file for a rule-set (BookFileError says what is wrong)."""
    path = existing(Path(path)) or Path(path)
    raw = read_bytes(path, BookFileError)
    data = decode(raw, str(path))
    if data.header.ruleset != ruleset:
        raise BookFileError(f"{path}: a {data.header.ruleset} book, not {ruleset}")
    if data.header.fingerprint != fingerprint:
        raise BookFileError(f"{path}: built for other rules (fingerprint "
                            f"{data.header.fingerprint:08x}, these rules {fingerprint:08x}): "
                            "rebuild it")
    return data
