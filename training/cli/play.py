"""``braincards play``: a person plays in the terminal with or against policies.

The person sees only what their seat may see; another seat's private decisions (the game's
spec names them) are shown as "makes a private choice". ``q`` or end of input abandons the
game.
"""

from __future__ import annotations

import random
import sys

from braincards.envs import derive_seed, get_spec, table_config

from ..agents.specs import cli_help, make_policy
from ..agents.table import Table, seats_config
from .common import add_config_warning_option
from .tables import table_options


def add_commands(sub) -> None:
    pl = sub.add_parser("play", help="play in the terminal with or against policies")
    pl.add_argument("game")
    pl.add_argument("--seat", action="append", required=True, metavar="SPEC",
                    help="'human' for you (exactly once), otherwise " + cli_help())
    pl.add_argument("--config", default=None, metavar="CONFIG", help="env options: a YAML file or a shipped "
                    "config's name (e.g. the_brain/team_3p)")
    pl.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    pl.add_argument("--seed", type=int, default=None, help="deal seed (default: a fresh one)")
    add_config_warning_option(pl)
    pl.set_defaults(func=cmd_play)


# exit status of a game left before its end: 3 for 'q' or closed input, 130 for Ctrl-C (so a
# script can tell a finished game, 0, from an abandoned one)
ABANDONED = 3
INTERRUPTED = 130


class _Quit(Exception):
    pass


def _ask(legal: list[int], out) -> int:
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


def _setup(args) -> tuple:
    """(the table config, seed, seat specs, the human's index) from the command line."""
    seats = [s.strip() for s in args.seat]
    humans = [i for i, s in enumerate(seats) if s == "human"]
    if len(humans) != 1:
        raise ValueError(f"give exactly one --seat human (got {len(humans)}); other seats take a "
                         f"policy spec")
    spec = get_spec(args.game)
    others = [s for i, s in enumerate(seats) if i != humans[0]]
    config = seats_config(spec, table_options(args, others, len(seats)), len(seats))
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    if seed < 0:
        raise ValueError(f"--seed {seed} must be >= 0")
    return table_config(spec, config), seed, seats, humans[0]


def cmd_play(args) -> int:
    out = sys.stdout
    resolved, seed, seats, human = _setup(args)
    spec = resolved.spec
    seated = [None if i == human else make_policy(s, resolved, seed=derive_seed(seed, 0, 1, i))
              for i, s in enumerate(seats)]
    # a policy that reads event history seats everyone behind the history wrapper; each
    # policy is given the prefix of the observation it reads
    table = Table.for_policies(resolved, policies=seated)
    table.seat(seated)
    raw, agents = table.raw, table.agents
    table.reset(seed=derive_seed(seed, 0))
    me = agents[human]
    label = {a: ("you" if a == me else f"{a} ({seats[i]})") for i, a in enumerate(agents)}
    out.write(f"{spec.id}, seed {seed}: you are {me}. Seats: " + ", ".join(label.values()) + "\n")
    try:
        while (agent := table.to_move) is not None:
            if agent == me:
                action = _human_turn(raw, me, out)
            else:
                action = table.policy_action()
                kind = spec.decision(raw.state)
                shown = f"makes a private choice ({kind})" if kind in spec.private_decisions else raw.action_meaning(action)
                out.write(f"{label[agent]}: {shown}\n")
            table.play(action)
    except (_Quit, KeyboardInterrupt) as why:
        out.write(f"game abandoned ({str(why) or 'interrupted'}); seed {seed}\n")
        return ABANDONED if isinstance(why, _Quit) else INTERRUPTED
    out.write("\nfinal table:\n" + raw.render_text() + "\n")
    how = "truncated (max_cycles)" if any(raw.truncations.values()) else "game over"
    rewards = ", ".join(f"{label[a]} {raw._cumulative_rewards[a]:+g}" for a in agents)
    out.write(f"result ({how}): {rewards}\n")
    return 0


def _human_turn(raw, me: str, out) -> int:
    out.write("\n" + raw.render_text(viewer=me) + "\n")
    legal = [int(a) for a in raw.legal_actions()]
    for k, a in enumerate(legal, 1):
        out.write(f"  {k:>2}) {raw.action_meaning(a)}\n")
    action = _ask(legal, out)
    out.write(f"you: {raw.action_meaning(action)}\n")
    return action
