"""The supported variants as data: one rule table each, read by the one compiled generator.

Every number of rules.md (draw counters included) lives here, so that a federation's newer wording
is followed by changing one value.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from functools import cached_property

from hub_engine.core import CoreRules

PRECEDENCE = {"none": 0, "quantity": 1, "quality": 2, "italian": 3}
CROWNING = {"end": 0, "pass": 1, "king": 2}


@dataclass(frozen=True)
class DrawRules:
    """Draw counters in moves by each side; 0 switches a rule off."""

    repetitions: int = 3
    quiet_moves: int = 0          # no man move and no capture
    nocapcrown_moves: int = 0     # no capture and no crowning
    kings_vs_lone: int = 0        # 3+ kings against a lone king
    both_kings_45: int = 0        # kings on both sides, 4-5 pieces, material unchanged
    both_kings_67: int = 0        # the same with 6-7 pieces
    three_vs_lone_diag: int = 0   # 3 pieces against a lone king on the long diagonal
    few_vs_lone: int = 0          # 1-2 pieces against a lone king
    three_kings_rio: int = 0      # 3 kings against 1, counted once the three hold the long diagonal


@dataclass(frozen=True)
class Variant:
    """Rules and conventions of one variant (see rules.md and hub-protocol.md)."""

    name: str
    flying_kings: bool
    men_capture_backward: bool
    precedence: str               # key of PRECEDENCE
    crowning: str                 # key of CROWNING: what a man reaching the last row mid-capture does
    men_take_kings: bool
    mirrored: bool                # light square in each player's lower-left corner
    first_mover: str              # "white" or "black" (who plays the pieces on layout 21..32)
    numbering: str                # move numbers: "russian" (a1 = 1), "layout", or "reverse" (33 - k)
    pdn_squares: str              # game-record squares: "layout", "algebraic" or "reverse"
    gametype: int                 # PDN GameType number
    draws: DrawRules = field(default_factory=DrawRules)

    @cached_property
    def core_rules(self) -> CoreRules:
        return CoreRules(
            flying=self.flying_kings,
            men_back=self.men_capture_backward,
            precedence=PRECEDENCE[self.precedence],
            crown_mid=CROWNING[self.crowning],
            men_take_kings=self.men_take_kings,
            **asdict(self.draws),
        )

    def with_draws(self, **changes: int) -> "Variant":
        """The same variant with other draw-rule numbers (e.g. the brazilian 20-move setting)."""
        return replace(self, draws=replace(self.draws, **changes))


_RUSSIAN_DRAWS = DrawRules(quiet_moves=15, kings_vs_lone=15, both_kings_45=30, both_kings_67=60,
                           three_vs_lone_diag=5, few_vs_lone=5)
_IBERIAN_DRAWS = DrawRules(quiet_moves=20, three_kings_rio=12)

VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant("brazilian", True, True, "quantity", "pass", True, False, "white", "russian",
                "layout", 26, _RUSSIAN_DRAWS),
        Variant("russian", True, True, "none", "king", True, False, "white", "russian",
                "algebraic", 25, _RUSSIAN_DRAWS),
        Variant("portuguese", True, False, "quality", "end", True, True, "white", "reverse",
                "reverse", 28, _IBERIAN_DRAWS),
        Variant("spanish", True, False, "quality", "end", True, True, "white", "reverse",
                "reverse", 24, _IBERIAN_DRAWS),
        Variant("italian", False, False, "italian", "end", False, True, "white", "layout",
                "layout", 22, DrawRules(nocapcrown_moves=40)),
        Variant("english", False, False, "none", "end", True, False, "black", "reverse",
                "reverse", 21, DrawRules(quiet_moves=40)),
    )
}

GAMETYPES: dict[int, str] = {v.gametype: v.name for v in VARIANTS.values()}
# Common aliases clients use for the same rules.
ALIASES = {"american": "english", "checkers": "english"}


def get_variant(name: str) -> Variant:
    """The variant called name (case-insensitive); ValueError names the supported ones."""
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    try:
        return VARIANTS[key]
    except KeyError:
        raise ValueError(f"unknown variant {name!r} (supported: {' '.join(VARIANTS)})") from None
