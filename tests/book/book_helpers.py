"""Helpers of the book tests: a deterministic stand-in for the scoring search, so that the
builder's logic is checked against independent computations quickly."""
from __future__ import annotations

import hashlib


def fake_score(hub: str) -> int:
    """A fixed pseudo-random score in -300..300 for a position (its Hub string)."""
    return int.from_bytes(hashlib.sha256(hub.encode()).digest()[:4], "little") % 601 - 300


def fake_analyser(task: dict, limits: dict) -> dict:
    return {"score": fake_score(task["position"]), "depth": 7, "nodes": 1234, "cpu": 0.001}
