"""`hub-engine learn selfplay|train|endings`: the command-line side of the learning pipeline."""
from __future__ import annotations

import argparse
import sys

from hub_engine.rules.variants import VARIANTS


def add_parser(sub) -> None:
    """Register `learn` and its subcommands on the main parser's subparsers."""
    learn = sub.add_parser("learn", help="self-play data and training of the learned evaluation")
    steps = learn.add_subparsers(dest="learn_command", required=True, metavar="STEP",
                                 parser_class=type(learn))

    from hub_engine.learn.selfplay import SelfPlayConfig

    d = SelfPlayConfig("russian")
    sp = steps.add_parser("selfplay", help="play games and write quiet positions with results")
    sp.set_defaults(handler=_selfplay, interrupted="hub-engine learn: interrupted; run the same "
                    "command again to resume")
    sp.add_argument("--variant", required=True, choices=sorted(VARIANTS),
                    help="rules of the games (spanish plays portuguese rules)")
    sp.add_argument("--games", type=int, required=True, help="games wanted in DIR in total")
    sp.add_argument("--out", required=True, metavar="DIR", help="shard directory (resumable)")
    sp.add_argument("--nodes", type=int, default=d.nodes, help=f"nodes per move (default {d.nodes})")
    sp.add_argument("--eval", default=d.eval, help="evaluation that plays: hand (default), "
                    "learned, or a weight file (the next generation's data)")
    sp.add_argument("--workers", type=int, default=None, help="local processes (default: all cores)")
    sp.add_argument("--scheduler", default=None, metavar="ADDRESS",
                    help="a Dask scheduler (tcp://host:port) instead of local processes")
    sp.add_argument("--seed", type=int, default=d.seed,
                    help="seed of every game's randomness (with the variant and game number)")
    sp.add_argument("--shard-games", type=int, default=d.shard_games,
                    help="games per shard file, the unit of work and of resuming")
    sp.add_argument("--opening-plies", type=int, nargs=2, default=(d.opening_min, d.opening_max),
                    metavar=("MIN", "MAX"), help="random opening plies (default 4 8)")
    sp.add_argument("--random-plies", type=int, default=d.random_plies,
                    help="plies during which a random near-best move may be played")
    sp.add_argument("--epsilon", type=float, default=d.epsilon,
                    help="probability of such a random near-best move")
    sp.add_argument("--max-plies", type=int, default=d.max_plies,
                    help="a game this long is a draw")

    tr = steps.add_parser("train", help="fit weights to self-play positions (needs numpy)")
    tr.set_defaults(handler=_train)
    tr.add_argument("--variant", required=True, choices=sorted(VARIANTS),
                    help="rule-set of the weights (spanish: portuguese)")
    tr.add_argument("--data", required=True, nargs="+", metavar="DIR",
                    help="self-play directories (several: generations pooled)")
    tr.add_argument("--out", required=True, metavar="WEIGHTS", help="weight file to write")
    from hub_engine.learn.config import TrainConfig

    t = TrainConfig()
    tr.add_argument("--l2", type=float, default=t.l2,
                    help=f"L2 penalty on pattern weights (default {t.l2:g})")
    tr.add_argument("--blend", type=float, default=t.blend,
                    help=f"weight of the search score in the target (0: results only; default "
                         f"{t.blend:g})")
    tr.add_argument("--holdout", type=float, default=t.holdout,
                    help=f"share of games held out (default {t.holdout:g})")
    tr.add_argument("--seed", type=int, default=t.seed, help="seed of the held-out split")
    tr.add_argument("--min-ply", type=int, default=t.min_ply, help="skip positions before this ply")
    tr.add_argument("--max-iter", type=int, default=t.max_iter,
                    help=f"L-BFGS iterations at most (default {t.max_iter})")
    tr.add_argument("--init", default=None, metavar="WEIGHTS",
                    help="start from these weights (default: zero patterns, hand-like scalars)")
    tr.add_argument("--anchor", action="store_true",
                    help="the L2 penalty pulls the patterns toward the --init weights instead "
                         "of 0 (a new generation from fewer games)")

    en = steps.add_parser("endings", help="fit the ending values of a weight file to self-play "
                          "positions and endgame tables (needs numpy and scipy)")
    en.set_defaults(handler=_endings)
    en.add_argument("--variant", required=True, choices=sorted(VARIANTS),
                    help="rule-set of the weights (spanish: portuguese)")
    en.add_argument("--data", required=True, nargs="+", metavar="DIR",
                    help="self-play directories")
    en.add_argument("--weights", required=True, metavar="WEIGHTS",
                    help="weight file whose patterns are kept (e.g. hub_engine/data/learned-V.bin)")
    en.add_argument("--out", required=True, metavar="WEIGHTS", help="weight file to write")
    en.add_argument("--tables", default=None, metavar="DIR",
                    help="endgame tables directory: positions they hold get their exact value "
                         "(default: game results only)")
    en.add_argument("--table-samples", type=int, default=0, metavar="N",
                    help="also N random quiet positions of every table slice (default 0)")
    en.add_argument("--prior-weight", type=float, default=2.0,
                    help="pull toward 0 (the score without ending values; default 2)")
    en.add_argument("--max-value", type=float, default=5.0,
                    help="largest value either way, in men (default 5)")
    en.add_argument("--holdout", type=float, default=t.holdout,
                    help=f"share of games held out for the reported loss (default {t.holdout:g})")
    en.add_argument("--seed", type=int, default=t.seed,
                    help="seed of the held-out split and the table samples")


def _selfplay(args: argparse.Namespace) -> int:
    from hub_engine.learn.selfplay import SelfPlayConfig, selfplay, stderr_progress
    from hub_engine.learn.weights import evaluation

    if args.games < 1 or args.nodes < 1 or args.shard_games < 1:
        raise ValueError("--games, --nodes and --shard-games must be positive")
    lo, hi = args.opening_plies
    if not 0 <= lo <= hi:
        raise ValueError("--opening-plies needs 0 <= MIN <= MAX")
    if not 0.0 <= args.epsilon <= 1.0:
        raise ValueError("--epsilon must be between 0 and 1")
    evaluation(args.variant, args.eval)          # a bad --eval fails here, not in the workers
    cfg = SelfPlayConfig(args.variant, nodes=args.nodes, opening_min=lo, opening_max=hi,
                         random_plies=args.random_plies, epsilon=args.epsilon,
                         max_plies=args.max_plies, eval=args.eval, seed=args.seed,
                         shard_games=args.shard_games)
    s = selfplay(cfg, args.games, args.out, workers=args.workers, scheduler=args.scheduler,
                 progress=stderr_progress)
    print(f"variant={s['variant']} shards={s['shards']} skipped={s['skipped']} "
          f"played={s['played']} positions={s['positions']} time={s['seconds']:.1f}")
    return 0


def _train(args: argparse.Namespace) -> int:
    from hub_engine.learn.config import TrainConfig

    try:
        import numpy  # noqa: F401
        import scipy  # noqa: F401
    except ImportError:
        raise RuntimeError("training needs numpy and scipy: pip install 'hub-engine[learn]'") \
            from None
    from hub_engine.learn.train import train_files

    cfg = TrainConfig(l2=args.l2, blend=args.blend, holdout=args.holdout, seed=args.seed,
                      min_ply=args.min_ply, max_iter=args.max_iter, anchor=args.anchor)
    if args.anchor and not args.init:
        raise ValueError("--anchor needs --init (the weights to pull toward)")
    if args.max_iter < 1 or not 0 <= args.holdout < 1 or not 0 <= args.blend <= 1:
        raise ValueError("--max-iter must be positive, --holdout in [0, 1), --blend in [0, 1]")
    report = train_files(args.variant, args.data, args.out, cfg, init=args.init,
                         log=lambda line: print(line, file=sys.stderr, flush=True))
    print(" ".join(f"{k}={v}" for k, v in report.items() if not isinstance(v, dict)))
    return 0


def _endings(args: argparse.Namespace) -> int:
    try:
        import numpy  # noqa: F401
        import scipy  # noqa: F401
    except ImportError:
        raise RuntimeError("fitting needs numpy and scipy: pip install 'hub-engine[learn]'") \
            from None
    from pathlib import Path

    from hub_engine.learn.endings import fit_files

    if args.table_samples < 0 or args.prior_weight < 0 or not 0 <= args.holdout < 1:
        raise ValueError("--table-samples and --prior-weight must be >= 0, --holdout in [0, 1)")
    if not 0 < args.max_value <= 20:
        raise ValueError("--max-value must be in (0, 20]")
    if args.tables is not None and not Path(args.tables).is_dir():
        raise ValueError(f"no tables directory {args.tables}")
    report = fit_files(args.variant, args.data, args.weights, args.out, args.tables,
                       args.table_samples, args.prior_weight, args.holdout, args.seed,
                       round(args.max_value * 100),
                       log=lambda line: print(line, file=sys.stderr, flush=True))
    print(" ".join(f"{k}={v}" for k, v in report.items() if not isinstance(v, dict)))
    return 0
