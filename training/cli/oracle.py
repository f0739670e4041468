"""``braincards oracle``: the share of The Brain deals a team could win with every card known."""

from __future__ import annotations

from ..evaluation.oracle import DEFAULT_NODES, DIFFICULTIES, check_game, format_oracle, oracle
from ..learning.yaml_files import load_env_config
from .common import write_json_result


def add_commands(sub) -> None:
    p = sub.add_parser("oracle", help="The Brain: share of deals winnable with every card known",
                       description=__doc__.splitlines()[0])
    p.add_argument("game", help="the_brain (the only cooperative game)")
    p.add_argument("--players", type=int, nargs="+", default=[3], help="player counts (default 3)")
    p.add_argument("--difficulty", nargs="+", default=list(DIFFICULTIES),
                   help="difficulties (or integer limits); default all three")
    p.add_argument("--deals", type=int, default=200, help="deals per config (default 200)")
    p.add_argument("--seed", type=int, default=0, help="deal g is the env reset with derive_seed(seed, g)")
    p.add_argument("--nodes", type=int, default=DEFAULT_NODES,
                   help=f"node budget per deal (default {DEFAULT_NODES:,}; 0: none); a deal over budget is "
                        "counted unknown")
    p.add_argument("--table-bits", type=int, default=None, metavar="B",
                   help="the solver's transposition table holds at most 2**B entries of 17 bytes "
                        "(default: from the budget, at most 2**24, about 285 MB)")
    p.add_argument("--config", default=None, metavar="CONFIG", help="other env options: a YAML file or a shipped "
                   "config's name")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override one env option, e.g. hand_size=4 (repeatable)")
    p.add_argument("--json", default=None, metavar="PATH", help="also write the result as JSON")
    p.set_defaults(func=cmd_oracle)


def cmd_oracle(args) -> int:
    check_game(args.game)
    config = load_env_config(args.config, args.set)
    for key in ("num_players", "difficulty"):
        if key in config:
            raise ValueError(f"give {key} with --players / --difficulty, not in the config")
    difficulties = [int(d) if str(d).isdigit() else d for d in args.difficulty]
    result = oracle(args.players, difficulties, deals=args.deals, seed=args.seed,
                    nodes=args.nodes or None, config=config, table_bits=args.table_bits)
    print(format_oracle(result))
    write_json_result(args.json, result)
    return 0
