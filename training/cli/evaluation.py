"""``braincards evaluate``, ``crossplay``, ``league``, ``xp`` and ``partners``: seat policies and
measure them."""

from __future__ import annotations

from braincards.envs import SPECS, get_spec

from ..agents.specs import cli_help
from ..evaluation.crossplay import crossplay, format_crossplay
from ..evaluation.evaluate import evaluate, format_evaluation
from ..evaluation.league import format_league, league
from ..evaluation.partners import format_partner_report, partner_report
from ..evaluation.xp import format_xp, xp_report
from ..learning.yaml_files import read_yaml
from .common import add_table_options, progress, write_json_result
from .tables import table_options


def add_commands(sub) -> None:
    ev = sub.add_parser("evaluate", help="seat policies and play N games: win rates, scores, CIs",
                        description="Seat one policy per player and play N games (seats rotate).")
    ev.add_argument("game", help="env id or game name, e.g. the_brain")
    ev.add_argument("--seat", action="append", required=True, metavar="SPEC",
                    help=cli_help() + "; one per player, in seat order")
    add_table_options(ev, players=False)
    ev.add_argument("--json", default=None, metavar="PATH", help="also write the result as JSON")
    ev.add_argument("--record", default=None, metavar="DIR",
                    help="write every game as a replay file in DIR (open them in `braincards serve`)")
    ev.set_defaults(func=cmd_evaluate)

    cp = sub.add_parser("crossplay", help="cooperative cross-play matrix (CSV + heatmap PNG)")
    cp.add_argument("game")
    cp.add_argument("specs", nargs="+", metavar="SPEC", help=cli_help())
    cp.add_argument("--out", required=True, metavar="DIR", help="where crossplay.csv/.png go")
    add_table_options(cp)
    cp.set_defaults(func=cmd_crossplay)

    lg = sub.add_parser("league", help="round-robin ratings (openskill) of competitive policies")
    lg.add_argument("game")
    lg.add_argument("specs", nargs="+", metavar="SPEC", help=cli_help())
    lg.add_argument("--out", required=True, metavar="DIR", help="where ratings.md/.csv go")
    add_table_options(lg)
    lg.set_defaults(func=cmd_league)

    xp = sub.add_parser("xp", help="cross-play report over seeds and recipes: self-play, intra-, inter-recipe, held-out",
                        description="Cross-play every agent of a report's recipes (one per seed) with each other "
                                    "and with its held-out partners, on the same deals; pool the cells per recipe.")
    xp.add_argument("runs", metavar="RUNS.yaml", help="game, config, recipes: {name: [spec, ...]}, held_out: [spec, "
                    "...], games, seed")
    xp.add_argument("--games", type=int, default=None, help="games per cell (default: the file's, else 100)")
    xp.add_argument("--workers", type=int, default=1, help="processes that play the games")
    xp.add_argument("--out", required=True, metavar="DIR", help="where xp.json/.md/.png and the matrix go")
    xp.add_argument("--quiet", action="store_true", help="no progress bar")
    xp.set_defaults(func=cmd_xp)

    pt = sub.add_parser("partners", help="a partner suite's population: cross-play diversity and best responses",
                        description="Play every member of one population table of a partner suite with every "
                                    "other (the cross-play gap, each held-out member's best partner) and, where "
                                    "the suite has best responses, each with every held-out partner.")
    pt.add_argument("suite", help="a partner suite's name (the_brain-partners-v1) or file")
    pt.add_argument("--table", required=True, help="the population table, e.g. 3p_robber")
    pt.add_argument("--games", type=int, default=100, help="games per cell (default 100)")
    pt.add_argument("--seed", type=int, default=0, help="the deals' seed (default 0)")
    pt.add_argument("--workers", type=int, default=1, help="processes that play the games")
    pt.add_argument("--out", required=True, metavar="DIR", help="where partners.json/.md and the matrix go")
    pt.add_argument("--quiet", action="store_true", help="no progress bar")
    pt.set_defaults(func=cmd_partners)


def _games(cooperative: bool) -> str:
    return ", ".join(s.id for s in SPECS.values() if s.cooperative == cooperative)


def cmd_evaluate(args) -> int:
    result = evaluate(args.game, table_options(args, args.seat, len(args.seat)), seats=args.seat, games=args.games,
                      seed=args.seed, workers=args.workers, deterministic=not args.stochastic,
                      progress=progress(args), record=args.record)
    print(format_evaluation(result))
    write_json_result(args.json, result)
    if args.record:
        print(f"wrote {args.games} replays to {args.record}")
    return 0


def cmd_crossplay(args) -> int:
    if not get_spec(args.game).cooperative:
        raise ValueError(f"cross-play is for cooperative games ({_games(True)}); "
                         f"{args.game} is competitive: rate {args.game} with `braincards league`")
    result = crossplay(args.game, table_options(args, args.specs), policies=args.specs, games=args.games,
                       seed=args.seed, workers=args.workers, out_dir=args.out,
                       deterministic=not args.stochastic, progress=progress(args))
    print(format_crossplay(result))
    print("\nwrote " + ", ".join(result["files"]))
    return 0


def cmd_league(args) -> int:
    if get_spec(args.game).cooperative:
        raise ValueError(f"a league rates competitive games ({_games(False)}); "
                         f"{args.game} is cooperative: measure {args.game} with `braincards "
                         f"crossplay` or `braincards evaluate`")
    result = league(args.game, table_options(args, args.specs), policies=args.specs, games=args.games,
                    seed=args.seed, workers=args.workers, out_dir=args.out,
                    deterministic=not args.stochastic, progress=progress(args))
    print(format_league(result))
    print("\nwrote " + ", ".join(result["files"]))
    return 0


def cmd_xp(args) -> int:
    runs = read_yaml(args.runs, "cross-play report")
    if args.games is not None and isinstance(runs, dict):
        runs = {**runs, "games": args.games}
    report = xp_report(runs, workers=args.workers, out_dir=args.out, progress=False if args.quiet else None)
    print(format_xp(report))
    print("\nwrote " + ", ".join(report["files"]))
    return 0


def cmd_partners(args) -> int:
    report = partner_report(args.suite, args.table, games=args.games, seed=args.seed, workers=args.workers,
                            out_dir=args.out, progress=False if args.quiet else None)
    print(format_partner_report(report))
    print(f"\nwrote {args.out}/partners.json, partners.md, crossplay.csv, crossplay.png")
    return 0
