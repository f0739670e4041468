"""``braincards serve``: the web app (play, replays, study mode) on a local port."""

from __future__ import annotations

import sys

import uvicorn

from ..serve import create_app
from ..serve.guard import LOCAL_HOSTS


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
    sv.set_defaults(func=cmd_serve)


def cmd_serve(args) -> int:
    hosts = (*LOCAL_HOSTS, args.host, *args.allow_host)
    app = create_app(replay_dir=args.replays, study=args.study, hosts=hosts)
    if args.host not in LOCAL_HOSTS:
        print(f"braincards: warning: serving on {args.host}: anyone who can reach this address "
              f"can play and read the replays", file=sys.stderr)
    print(f"braincards serve: http://{args.host}:{args.port}/ (Ctrl-C to stop)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
