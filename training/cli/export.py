"""``braincards export CHECKPOINT --onnx OUT``: a checkpoint's network as an ONNX file that
plays without torch (the policy spec ``onnx:OUT``)."""

from __future__ import annotations

from braincards.training.agents.locations import resolve_checkpoint
from braincards.training.agents.onnx_export import export_onnx


def add_commands(sub) -> None:
    export = sub.add_parser("export", help="a checkpoint's network as an ONNX file (torch-free inference)")
    export.add_argument("checkpoint", help="a checkpoint path (NAME.zip) or a shipped name, e.g. the_brain/ppo_3p")
    export.add_argument("--onnx", required=True, metavar="OUT", help="the ONNX file to write, e.g. runs/ppo_3p.onnx")
    export.set_defaults(func=cmd_export)


def cmd_export(args) -> int:
    path = resolve_checkpoint(args.checkpoint)
    if path is None:
        print(f"error: no checkpoint {args.checkpoint!r} (a path to NAME.zip, or a shipped name)")
        return 2
    info = export_onnx(path, args.onnx)
    print(f"wrote {args.onnx}: {info['game']}, {info['observation_size']} observation floats -> "
          f"{info['num_actions']} actions (inputs observation, action_mask; outputs log_probs, action); "
          f"play it with --seat onnx:{args.onnx}")
    return 0
