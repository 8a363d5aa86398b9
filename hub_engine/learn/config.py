"""Training settings (numpy-free, so that the command line can show the defaults)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TrainConfig:
    l2: float = 2e-4           # L2 penalty on the pattern weights (weights in men)
    blend: float = 0.3         # target = (1 - blend) * result + blend * sigmoid(search score / K)
    holdout: float = 0.1       # share of games held out for the reported loss
    seed: int = 1              # of the held-out split
    min_ply: int = 0           # skip positions before this ply
    max_iter: int = 300        # L-BFGS iterations at most
    anchor: bool = False       # the L2 penalty pulls toward the --init weights instead of 0
