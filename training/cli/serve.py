"""``braincards serve``: the web app (play, replays, study mode) on a local port; ``braincards
study-export``: a study's human decisions, ready for behaviour cloning."""

from __future__ import annotations

import sys

import uvicorn

from ..serve import create_app
from ..serve.guard import LOCAL_HOSTS
from ..serve.study_export import export_study


def add_commands(sub) -> None:
    sv = sub.add_parser("serve", help="play, watch replays and run studies in the browser",
                        description="A local web app: new games with any seats, replays, and "
                                    "study mode. Binds 127.0.0.1 unless --host is given.")
    sv.add_argument("--host", default="127.0.0.1",
                    help="address to bind (default 127.0.0.1: this machine only)")
    sv.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    sv.add_argument("--replays", default="replays", metavar="DIR",
                    help="where finished games' replays are written and read (default replays/)")
    sv.add_argument("--study", default=None, metavar="STUDY.yaml",
                    help="run this study protocol (see docs/serve.md) instead of free play")
    sv.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                    help="another host name the pages are reached by (the Host header), e.g. this "
                    "machine's name on the network; 127.0.0.1, localhost and --host always are")
    sv.add_argument("--idle-minutes", type=float, default=None, metavar="M",
                    help="drop a game nobody has asked about for M minutes (default 30; 1 to 10080; "
                    "a study's games are never dropped)")
    sv.set_defaults(func=cmd_serve)

    ex = sub.add_parser("study-export", help="a study's human decisions for behaviour cloning (train/test split by participant)",
                        description="Replay every finished game of a study and write each decision of the "
                                    "person's seat (observation, mask, action, time, condition) to DIR/decisions.npz, "
                                    "with a manifest (DIR/decisions.json) and a train/test split by participant.")
    ex.add_argument("study", metavar="STUDY_DIR", help="the study's folder (its out:, holding results.csv and replays/)")
    ex.add_argument("--out", required=True, metavar="DIR", help="where decisions.npz and decisions.json go")
    ex.add_argument("--test-share", type=float, default=0.2, help="the share of participants in the test split (0.2)")
    ex.add_argument("--seed", type=int, default=0, help="seeds the split's shuffle (0)")
    ex.set_defaults(func=cmd_study_export)


def cmd_serve(args) -> int:
    hosts = (*LOCAL_HOSTS, args.host, *args.allow_host)
    app = create_app(replay_dir=args.replays, study=args.study, hosts=hosts, idle_minutes=args.idle_minutes)
    if args.host not in LOCAL_HOSTS:
        print(f"braincards: warning: serving on {args.host}: anyone who can reach this address "
              f"can play and read the replays", file=sys.stderr)
    print(f"braincards serve: http://{args.host}:{args.port}/ (Ctrl-C to stop)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def cmd_study_export(args) -> int:
    manifest = export_study(args.study, args.out, test_share=args.test_share, seed=args.seed)
    split = manifest["split"]
    print(f"{manifest['decisions']} decisions of {len(manifest['participants'])} participants "
          f"({len(split['train'])} train, {len(split['test'])} test) -> {args.out}/decisions.npz, decisions.json")
    return 0
