"""Table files: damaged, truncated or foreign files are reported and ignored; builds resume."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from hub_engine import Position
from hub_engine.tables import fileformat as ff
from hub_engine.tables.build import build, plan
from hub_engine.tables.store import read_slice
from hub_engine.tables.probe import Tables
from hub_engine.tables.slices import Material, pairs, ruleset_of
from hub_engine.tables.store import ENV_VAR, slice_path, tables_dir
from launchers import engine_command

KK = Material(0, 1, 0, 1)


@pytest.fixture()
def copy3(small_dir, tmp_path):
    """A private copy of the english tables up to 3 pieces."""
    shutil.copytree(small_dir / "english", tmp_path / "english")
    return tmp_path


def test_a_truncated_file_is_detected_and_ignored(copy3):
    path = slice_path(copy3, "english", "wld", KK)
    path.write_bytes(path.read_bytes()[:-7])
    with pytest.raises(ff.TableFileError, match="truncated"):
        read_slice(copy3, "english", ff.KIND_WLD, KK)
    t = Tables("english", [copy3])
    assert ("wld", KK) not in t.files and any("truncated" in e for e in t.errors)
    assert t.complete_pieces() == 0            # the set is no longer complete
    assert t.probe(Position.from_hub("english", "W" + "e" * 21 + "W" + "e" * 9 + "B")) is None


@pytest.mark.parametrize("offset", [20, 200, -1])
def test_a_corrupted_byte_is_detected(copy3, offset):
    # offset 20: inside the header (header checksum); 200 and -1: in the data (payload checksum)
    path = slice_path(copy3, "english", "wld", Material(0, 2, 0, 1))
    raw = bytearray(path.read_bytes())
    raw[offset] ^= 0x40
    path.write_bytes(bytes(raw))
    with pytest.raises(ff.TableFileError, match="damaged"):
        read_slice(copy3, "english", ff.KIND_WLD, Material(0, 2, 0, 1))
    assert ("wld", Material(0, 2, 0, 1)) not in Tables("english", [copy3]).files


def test_a_file_of_other_rules_or_another_slice_is_refused(copy3):
    src = slice_path(copy3, "english", "wld", KK)
    dest = slice_path(copy3, "russian", "wld", KK)
    dest.parent.mkdir(parents=True)
    shutil.copy(src, dest)
    with pytest.raises(ff.TableFileError, match="expected wld russian"):
        read_slice(copy3, "russian", ff.KIND_WLD, KK)
    shutil.copy(src, slice_path(copy3, "english", "wld", Material(1, 0, 0, 1)))
    with pytest.raises(ff.TableFileError, match=r"expected wld english \(1, 0, 0, 1\)"):
        read_slice(copy3, "english", ff.KIND_WLD, Material(1, 0, 0, 1))


def test_a_damaged_table_falls_back_to_the_shipped_one(copy3):
    path = slice_path(copy3, "english", "wld", KK)
    path.write_bytes(b"HUBENDTB" + b"\0" * 10)
    from hub_engine.tables.probe import search_roots
    t = Tables("english", search_roots(copy3))
    assert t.files[("wld", KK)].name == "0101.tb.xz" and t.errors


def test_a_killed_build_goes_on_where_it_stopped(copy3):
    # finished slices stay; a removed (or half-written) slice and nothing else is built again
    todo, done = plan(copy3, "english", 3)
    assert todo == [] and len(done) == len(pairs(3))
    slice_path(copy3, "english", "wld", Material(1, 1, 0, 1)).unlink()
    slice_path(copy3, "english", "wld", Material(2, 0, 0, 1)).with_suffix(".tb.part").write_bytes(b"x")
    rep = build("english", 3, copy3, progress=False, workers=1)
    assert sorted(r.material.name for r in rep.built) == ["0111", "1101"]
    assert rep.kept == sum(len(p) for p in pairs(3)) - 2
    # a finished slice whose work file a larger build needs is rebuilt
    slice_path(copy3, "english", "work", KK).unlink()
    todo, _ = plan(copy3, "english", 3)
    assert todo == []                       # nothing left to build at 3 pieces needs it ...
    todo, _ = plan(copy3, "english", 4)
    assert (KK,) in todo                    # ... but a 4-piece build does


def test_the_shipped_tables_are_what_the_generator_builds(shipped, tmp_path):
    build("english", 4, tmp_path, progress=False)
    fresh = Tables("english", [tmp_path])
    # the package holds every win/draw/loss table and the distances of kings-only slices
    assert set(shipped["english"].files) == {(kind, m) for kind, m in fresh.files
                                             if kind == "wld" or m.kings_only}
    for (kind, m), path in shipped["english"].files.items():
        k = ff.KIND_WLD if kind == "wld" else ff.KIND_DTC
        a = read_slice(tmp_path, "english", k, m)
        b = ff.read_table(path, kind=k, ruleset="english", material=m,
                          fingerprint=a.header.fingerprint, size=m.size)
        assert bytes(a.data) == bytes(b.data) and bytes(a.blocks) == bytes(b.blocks), (kind, m)


def test_spanish_reads_the_portuguese_tables():
    from hub_engine.rules.variants import VARIANTS
    assert ruleset_of("spanish") == "portuguese"
    assert VARIANTS["spanish"].core_rules.as_dict() == VARIANTS["portuguese"].core_rules.as_dict()
    assert {ruleset_of(v) for v in VARIANTS} == {"english", "italian", "russian", "brazilian",
                                                 "portuguese"}


def test_the_tables_directory_comes_from_option_environment_or_user_data(monkeypatch, tmp_path):
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert tables_dir().parts[-2:] == ("hub-engine", "tables")
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    assert tables_dir() == tmp_path
    assert tables_dir(tmp_path / "x") == tmp_path / "x"


def _cli(*args, env=None):
    return subprocess.run([*engine_command(), "tables", *args], capture_output=True, text=True,
                          timeout=120, env=env)


def test_cli_probe_info_and_errors(copy3):
    pos = "W" + "e" * 10 + "W" + "e" * 10 + "W" + "e" * 9 + "B"      # english 2 kings v 1
    r = _cli("probe", "--variant", "english", "--pos", pos, "--dir", str(copy3))
    assert r.returncode == 0 and r.stdout.startswith("win distance=") and r.stderr == ""
    r = _cli("info", "--variant", "english", "--dir", str(copy3), "--slices")
    assert r.returncode == 0 and "english wld 0101 positions=992 wins=230 draws=654 losses=108" in r.stdout
    path = slice_path(copy3, "english", "wld", KK)
    path.write_bytes(path.read_bytes()[:100])
    r = _cli("info", "--variant", "english", "--dir", str(copy3))
    assert "damaged:" in r.stdout and "truncated" in r.stdout
    r = _cli("probe", "--variant", "english", "--pos", "W" + "e" * 21 + "W" + "e" * 9 + "B",
             "--dir", str(copy3))
    assert r.returncode == 0 and "truncated" in r.stderr      # the shipped table answers instead
    for bad in (["probe", "--variant", "english", "--pos", "Wxx"],
                ["probe", "--variant", "english", "--pos", "start"],
                ["build", "--variant", "english", "--pieces", "9", "--dir", str(copy3)]):
        r = _cli(*bad)
        assert r.returncode == 2 and r.stderr.startswith("hub-engine: error:") and "Traceback" not in r.stderr
