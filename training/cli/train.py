"""``braincards train``: train a policy from a YAML config, on SB3 (default) or Ray RLlib."""

from __future__ import annotations

import sys
from pathlib import Path

from ..learning.config import BACKENDS, load_train_config
from ..learning.ranges import range_line
from ..learning.sb3 import train
from ..learning.yaml_files import parse_sets
from .common import add_config_warning_option, rllib_extra


def add_commands(sub) -> None:
    tr = sub.add_parser("train", help="train a policy from a YAML config (MaskablePPO, or RLlib)",
                        description="Train a policy from a YAML training config (see docs/training.md).")
    tr.add_argument("config", metavar="CONFIG", help="training config: a YAML file, or a shipped config's name "
                    "(e.g. the_brain/train_3p_quick, as configs/the_brain/train_3p_quick.yaml)")
    tr.add_argument("--timesteps", type=int, default=None, help="override total_timesteps")
    tr.add_argument("--seed", type=int, default=None, help="override seed")
    tr.add_argument("--out", default=None, metavar="DIR", help="output folder (default: runs/<config>-seed<S>)")
    tr.add_argument("--resume", default=None, metavar="CKPT", help="continue from a checkpoint (e.g. DIR/last)")
    tr.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a config key (dotted, value parsed as YAML), e.g. ppo.n_epochs=8")
    tr.add_argument("--torch-threads", type=int, default=None, help="torch threads per process (default 1)")
    tr.add_argument("--eval-workers", type=int, default=1, metavar="N",
                    help="processes that play the evaluations (default 1; the results do not depend on it)")
    tr.add_argument("--backend", choices=BACKENDS, default=None,
                    help="the config's backend.name: sb3 (MaskablePPO on this machine, the default) or rllib "
                         "(Ray RLlib, braincards[rllib]); the config's backend section must then hold only that "
                         "backend's keys")
    tr.add_argument("--quiet", action="store_true", help="no progress bar")
    add_config_warning_option(tr)
    tr.set_defaults(func=cmd_train)


def cmd_train(args) -> int:
    overrides = parse_sets(args.set)
    for key, value in (("total_timesteps", args.timesteps), ("seed", args.seed),
                       ("torch_threads", args.torch_threads)):
        if value is not None:
            overrides[key] = value
    if args.backend is not None:
        overrides["backend.name"] = args.backend
    cfg = load_train_config(args.config, overrides)
    out = args.out or str(Path("runs") / f"{Path(args.config).stem}-seed{cfg.seed}")
    if args.eval_workers < 1:
        raise ValueError(f"--eval-workers {args.eval_workers}: the evaluation's worker processes, an integer >= 1")
    if cfg.backend.name == "rllib":
        if args.eval_workers != 1:
            raise ValueError("--eval-workers is an option of the sb3 backend (not backend rllib)")
        rllib_extra().train_rllib(cfg, out, resume_from=args.resume, progress=not args.quiet)
        return 0
    summary = train(cfg, out, resume_from=args.resume, progress=not args.quiet and sys.stderr.isatty(),
                    eval_workers=args.eval_workers)
    line = range_line(cfg, summary)
    if line:
        print(line)
    return 0
