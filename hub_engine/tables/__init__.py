"""Endgame tables: exact values of positions with few pieces, per rule-set.

    rules core -> retrograde build (tb_gen.pxi) -> slice files in the data directory -> probe in
    the core's search (tb_probe.pxi), in `analyse`, and from Python (open_tables(...).probe()).

Modules: slices (materials, rule-sets, build order), fileformat (header, checksums), store
(where files live), build (the resumable, parallel build), probe (loading and the Python probe
API), play (the engine's parameters and root rules), cli (`hub-engine tables ...`).
"""
from hub_engine.tables.probe import ProbeResult, Tables, open_tables
from hub_engine.tables.slices import RULESETS, Material, ruleset_of

__all__ = ["Material", "ProbeResult", "RULESETS", "Tables", "open_tables", "ruleset_of"]
