"""The ``evaluate``, ``crossplay``, ``league`` and ``play`` subcommands of ``braincards``."""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

SPEC_HELP = ("policy spec: 'random', 'heuristic', 'greedy' or 'pimc' (The Brain; "
             "'pimc:samples=N,nodes=N'), 'heuristic:window=K' (Brilliant Boar: remembers only "
             "the last K events), a checkpoint path (NAME.zip + NAME.json) or a shipped "
             "checkpoint name (e.g. the_brain/ppo_3p; also searched in $BRAINCARDS_CHECKPOINTS)")  # fmt: skip

# decisions whose choice another seat may not see (the play command hides them)
PRIVATE_DECISIONS = {"oh_my_brain_v0": {"draft", "keep", "refill", "give_card"}}


# ---------------------------------------------------------------------------- config
def read_yaml(path: str | Path, what: str = "config file") -> Any:
    """The data of a YAML file (``{}`` for an empty one); ValueError if it is missing or
    not valid YAML."""
    import yaml

    p = Path(path)
    if not p.is_file():
        raise ValueError(f"{what} {path} does not exist")
    try:
        data = yaml.safe_load(p.read_text())
    except yaml.YAMLError as err:
        raise ValueError(f"{what} {path} is not valid YAML: {err}") from None
    return {} if data is None else data


def parse_sets(items: list[str] | None) -> dict[str, Any]:
    """``--set KEY=VALUE`` options -> ``{KEY: value}`` (each value parsed as YAML)."""
    import yaml

    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"--set {item!r}: expected KEY=VALUE")
        if not key.strip():
            raise ValueError(f"--set {item!r}: empty key; expected KEY=VALUE")
        try:
            out[key.strip()] = yaml.safe_load(value)
        except yaml.YAMLError as err:
            raise ValueError(f"--set {item!r}: bad value: {err}") from None
    return out


def load_config(path: str | None, sets: list[str] | None) -> dict:
    """The env config from a YAML file (a mapping of env options, or a mapping with an
    ``env`` mapping inside) plus ``--set KEY=VALUE`` overrides (values parsed as YAML)."""
    config: dict = {}
    if path:
        data = read_yaml(path)
        if isinstance(data, dict) and isinstance(data.get("env"), dict):
            data = data["env"]
        if not isinstance(data, dict):
            raise ValueError(f"config file {path} must hold a mapping of env options")
        config.update(data)
    config.update(parse_sets(sets))
    return config


def _common(p: argparse.ArgumentParser, *, games_default: int = 100, players: bool = True) -> None:
    p.add_argument("--games", type=int, default=games_default, help="games to play (per cell/group)")
    p.add_argument("--config", default=None, metavar="FILE.yaml", help="env config (YAML mapping)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override one env option (value parsed as YAML), repeatable")  # fmt: skip
    if players:
        p.add_argument("--players", type=int, default=None, help="num_players (default: 2)")
    p.add_argument("--seed", type=int, default=0, help="evaluation seed (default 0)")
    p.add_argument("--workers", type=int, default=1, help="parallel processes (same results)")
    p.add_argument("--stochastic", action="store_true",
                   help="checkpoints sample their actions instead of playing the most likely")  # fmt: skip
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def add_commands(sub) -> None:
    ev = sub.add_parser("evaluate", help="seat policies and play N games: win rates, scores, CIs",
                        description="Seat one policy per player and play N games (seats rotate).")  # fmt: skip
    ev.add_argument("game", help="env id or game name, e.g. the_brain")
    ev.add_argument("--seat", action="append", required=True, metavar="SPEC",
                    help=SPEC_HELP + "; one per player, in seat order")  # fmt: skip
    _common(ev, players=False)
    ev.add_argument("--json", default=None, metavar="PATH", help="also write the result as JSON")
    ev.set_defaults(func=cmd_evaluate)

    cp = sub.add_parser("crossplay", help="cooperative cross-play matrix (CSV + heatmap PNG)")
    cp.add_argument("game")
    cp.add_argument("specs", nargs="+", metavar="SPEC", help=SPEC_HELP)
    cp.add_argument("--out", required=True, metavar="DIR", help="where crossplay.csv/.png go")
    _common(cp)
    cp.set_defaults(func=cmd_crossplay)

    lg = sub.add_parser("league", help="round-robin ratings (openskill) of competitive policies")
    lg.add_argument("game")
    lg.add_argument("specs", nargs="+", metavar="SPEC", help=SPEC_HELP)
    lg.add_argument("--out", required=True, metavar="DIR", help="where ratings.md/.csv go")
    _common(lg)
    lg.set_defaults(func=cmd_league)

    pl = sub.add_parser("play", help="play in the terminal with or against policies")
    pl.add_argument("game")
    pl.add_argument("--seat", action="append", required=True, metavar="SPEC",
                    help="'human' for you (exactly once), otherwise " + SPEC_HELP)  # fmt: skip
    pl.add_argument("--config", default=None, metavar="FILE.yaml")
    pl.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    pl.add_argument("--seed", type=int, default=None, help="deal seed (default: a fresh one)")
    pl.set_defaults(func=cmd_play)


def _with_players(args, config: dict) -> dict:
    if getattr(args, "players", None) is not None:
        config["num_players"] = args.players
    return config


def _progress(args):
    return False if args.quiet else None


# ---------------------------------------------------------------------------- commands
def cmd_evaluate(args) -> int:
    from .evaluate import evaluate, format_evaluation

    config = load_config(args.config, args.set)
    result = evaluate(args.game, config, seats=args.seat, games=args.games, seed=args.seed,
                      workers=args.workers, deterministic=not args.stochastic,
                      progress=_progress(args))  # fmt: skip
    print(format_evaluation(result))
    write_json_result(args.json, result)
    return 0


def write_json_result(path: str | None, result) -> None:
    """``--json FILE``: the command's full result as JSON (nothing when ``path`` is None)."""
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(json.dumps(result, indent=2) + "\n")
        print(f"\nwrote {path}")


def cmd_crossplay(args) -> int:
    from .evaluate import COOPERATIVE_GAMES, crossplay, format_crossplay

    if args.game not in COOPERATIVE_GAMES:
        raise ValueError(f"cross-play is for cooperative games ({', '.join(COOPERATIVE_GAMES)}); "
                         f"{args.game} is competitive: rate {args.game} with `braincards league`")  # fmt: skip
    config = _with_players(args, load_config(args.config, args.set))
    result = crossplay(args.game, config, policies=args.specs, games=args.games, seed=args.seed,
                       workers=args.workers, out_dir=args.out, deterministic=not args.stochastic,
                       progress=_progress(args))  # fmt: skip
    print(format_crossplay(result))
    print("\nwrote " + ", ".join(result["files"]))
    return 0


def cmd_league(args) -> int:
    from .evaluate import COMPETITIVE_GAMES, format_league, league

    if args.game not in COMPETITIVE_GAMES:
        raise ValueError(f"a league rates competitive games ({', '.join(COMPETITIVE_GAMES)}); "
                         f"{args.game} is cooperative: measure {args.game} with `braincards "
                         f"crossplay` or `braincards evaluate`")  # fmt: skip
    config = _with_players(args, load_config(args.config, args.set))
    result = league(args.game, config, policies=args.specs, games=args.games, seed=args.seed,
                    workers=args.workers, out_dir=args.out, deterministic=not args.stochastic,
                    progress=_progress(args))  # fmt: skip
    print(format_league(result))
    print("\nwrote " + ", ".join(result["files"]))
    return 0


# ---------------------------------------------------------------------------- play
def _decision_name(raw) -> str | None:
    import importlib

    try:
        rules = importlib.import_module(type(raw).__module__.rsplit(".", 1)[0] + ".rules")
        return rules.DECISIONS[raw.state.phase]
    except (AttributeError, IndexError, ImportError, TypeError):
        return None


class _Quit(Exception):
    pass


def _ask(legal: list[int], raw, out) -> int:
    """Ask for one of the numbered legal actions until the answer is valid."""
    while True:
        out.write(f"your choice [1-{len(legal)}] (q to quit): ")
        out.flush()
        line = sys.stdin.readline()
        if line == "":  # EOF
            out.write("\n")
            raise _Quit("input closed")
        text = line.strip().lower()
        if text in ("q", "quit", "exit"):
            raise _Quit("quit")
        try:
            k = int(text)
        except ValueError:
            out.write(f"  '{line.strip()}' is not a number; enter 1..{len(legal)}\n")
            continue
        if not 1 <= k <= len(legal):
            out.write(f"  {k} is not a choice; enter 1..{len(legal)}\n")
            continue
        return legal[k - 1]


def cmd_play(args) -> int:
    from braincards.envs import make

    from .checkpoint import make_table
    from .evaluate import derive_seed
    from .policies import check_env_options, history_k_of, make_policy

    out = sys.stdout
    seats = [s.strip() for s in args.seat]
    humans = [i for i, s in enumerate(seats) if s == "human"]
    if len(humans) != 1:
        raise ValueError(f"give exactly one --seat human (got {len(humans)}); other seats take a "
                         f"policy spec")  # fmt: skip
    config = load_config(args.config, args.set)
    n = config.setdefault("num_players", len(seats))
    if n != len(seats):
        raise ValueError(f"config has num_players={n} but {len(seats)} seats were given")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    if seed < 0:
        raise ValueError(f"--seed {seed} must be >= 0")
    check_env_options(args.game, config)
    agents = make(args.game, raw=True, **config).possible_agents
    policies = {}
    for i, spec in enumerate(seats):
        if i not in humans:
            policies[agents[i]] = make_policy(spec, args.game, config, seed=derive_seed(seed, 0, 1, i))
    # a policy that reads event history seats everyone behind the history wrapper; each
    # policy is given the prefix of the observation it reads
    table = make_table(args.game, config, history_k_of(policies.values()))
    raw = table.unwrapped
    sizes = {a: getattr(p, "observation_size", raw.layout.size) for a, p in policies.items()}
    table.reset(seed=derive_seed(seed, 0))
    me = raw.possible_agents[humans[0]]
    private = PRIVATE_DECISIONS.get(args.game, set())
    label = {a: ("you" if a == me else f"{a} ({seats[i]})") for i, a in enumerate(raw.possible_agents)}
    out.write(f"{args.game}, seed {seed}: you are {me}. Seats: "
              + ", ".join(label[a] for a in raw.possible_agents) + "\n")  # fmt: skip
    try:
        while True:
            agent = raw.agent_selection
            if raw.terminations[agent] or raw.truncations[agent]:
                break
            obs = table.observe(agent)
            if agent == me:
                out.write("\n" + raw.render_text(viewer=me) + "\n")
                legal = [int(a) for a in raw.legal_actions()]
                for k, a in enumerate(legal, 1):
                    out.write(f"  {k:>2}) {raw.action_meaning(a)}\n")
                action = _ask(legal, raw, out)
                out.write(f"you: {raw.action_meaning(action)}\n")
            else:
                obs = {"observation": obs["observation"][: sizes[agent]], "action_mask": obs["action_mask"]}
                action = policies[agent].act(obs, agent)
                kind = _decision_name(raw)
                if kind in private:
                    out.write(f"{label[agent]}: makes a private choice ({kind})\n")
                else:
                    out.write(f"{label[agent]}: {raw.action_meaning(action)}\n")
            table.step(action)
    except (_Quit, KeyboardInterrupt) as why:
        out.write(f"game abandoned ({str(why) or 'interrupted'}); seed {seed}\n")
        return 0
    out.write("\nfinal table:\n" + raw.render_text() + "\n")
    how = "truncated (max_cycles)" if any(raw.truncations.values()) else "game over"
    rewards = ", ".join(f"{label[a]} {raw._cumulative_rewards[a]:+g}" for a in raw.possible_agents)
    out.write(f"result ({how}): {rewards}\n")
    return 0
