"""Learned evaluation: self-play data, pattern features, training and the weight files.

The pipeline (README, "Learned evaluation"): `hub-engine learn selfplay` plays games with the
compiled searcher and writes quiet positions with their game result; `hub-engine learn train`
fits pattern and scalar weights to them (numpy, the `learn` extra); the weights ship as package
data (hub_engine/data/learned-<variant>.bin) and the compiled core evaluates with them.

Only `train` and `features` need numpy; `weights`, `patterns`, `records` and `selfplay` do not,
so the engine and the one-file executable load weights without it.
"""
