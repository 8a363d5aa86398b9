"""The book file: round trip, and every kind of bad file refused with a reason."""
from __future__ import annotations

import lzma
from array import array

import pytest

from hub_engine.book.fileformat import (HEADER_SIZE, BookData, BookFileError, Header, read_book,
                                        rules_fingerprint, write_book)
from hub_engine.rules.variants import get_variant

FP = rules_fingerprint(get_variant("russian").core_rules)


def sample(n: int = 50) -> BookData:
    keys = array("Q", sorted({(i * 0x9E3779B97F4A7C15) % 2**64 for i in range(1, n + 1)}))
    values = array("h", [(i * 37) % 600 - 300 for i in range(n)])
    flags = bytes(i % 2 for i in range(n))
    heights = bytes(i % 9 for i in range(n))
    return BookData(Header("russian", FP, n, n // 2, 500000), keys, values, flags, heights)


@pytest.mark.parametrize("name", ["russian.book", "russian.book.xz"])
def test_round_trip(tmp_path, name):
    data = sample()
    write_book(tmp_path / name, data)
    back = read_book(tmp_path / "russian.book", ruleset="russian", fingerprint=FP)
    assert list(back.keys) == list(data.keys) and list(back.values) == list(data.values)
    assert back.flags == data.flags and back.heights == data.heights
    assert back.header.entries == 50 and back.header.expanded == 25
    assert back.header.nodes == 500000 and back.header.ruleset == "russian"
    if name.endswith(".xz"):
        assert (tmp_path / name).read_bytes()[:6] == b"\xfd7zXZ\x00"


def test_spanish_and_portuguese_rules_share_a_fingerprint():
    fp = {v: rules_fingerprint(get_variant(v).core_rules) for v in
          ("spanish", "portuguese", "russian", "brazilian", "italian", "english")}
    assert fp["spanish"] == fp["portuguese"]
    assert len(set(fp.values())) == 5


def _write(tmp_path, raw: bytes):
    (tmp_path / "russian.book").write_bytes(raw)


def _refused(tmp_path, match: str, ruleset="russian", fingerprint=FP):
    with pytest.raises(BookFileError, match=match):
        read_book(tmp_path / "russian.book", ruleset=ruleset, fingerprint=fingerprint)


def test_bad_files_are_refused(tmp_path):
    write_book(tmp_path / "russian.book", sample())
    good = (tmp_path / "russian.book").read_bytes()
    _write(tmp_path, good[:HEADER_SIZE + 100])
    _refused(tmp_path, "truncated")
    _write(tmp_path, good[:30])
    _refused(tmp_path, "truncated")
    _write(tmp_path, good + b"\0")
    _refused(tmp_path, "truncated or padded")
    damaged = bytearray(good)
    damaged[HEADER_SIZE + 5] ^= 0x40
    _write(tmp_path, bytes(damaged))
    _refused(tmp_path, "damaged data")
    damaged = bytearray(good)
    damaged[20] ^= 1
    _write(tmp_path, bytes(damaged))
    _refused(tmp_path, "damaged header")
    _write(tmp_path, b"NOTABOOK" + good[8:])
    _refused(tmp_path, "not a hub-engine book")
    _write(tmp_path, good)
    _refused(tmp_path, "a russian book, not brazilian", ruleset="brazilian")
    _refused(tmp_path, "other rules", fingerprint=FP ^ 1)
    (tmp_path / "russian.book").unlink()
    _refused(tmp_path, "cannot read")
    (tmp_path / "russian.book.xz").write_bytes(lzma.compress(good)[:-20])
    _refused(tmp_path, "not a valid xz stream")


def test_unsorted_keys_are_refused(tmp_path):
    data = sample()
    keys = array("Q", reversed(data.keys))
    write_book(tmp_path / "russian.book", BookData(data.header, keys, data.values, data.flags,
                                                   data.heights))
    _refused(tmp_path, "out of order")
