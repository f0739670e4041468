"""``braincards proxy fit``: behaviour-cloning proxies (a train and a test one) of a study's
people, from its export."""

from __future__ import annotations

from ..learning.proxy import fit_proxies


def add_commands(sub) -> None:
    px = sub.add_parser("proxy", help="behaviour-cloning proxies of a study's people (train and test split)",
                        description="Proxies of the people in a study, fitted by behaviour cloning on its export.")
    actions = px.add_subparsers(dest="proxy_command", required=True)
    fit = actions.add_parser("fit", help="fit the train-split and the test-split proxy of a study export",
                             description="Fit proxy_train (a training partner) on the train split's decisions and "
                                         "proxy_test (for evaluation only) on the test split's, as checkpoints.")
    fit.add_argument("export", metavar="EXPORT_DIR", help="a study export (braincards study-export's --out)")
    fit.add_argument("--out", required=True, metavar="DIR", help="where proxy_train, proxy_test and proxy.json go")
    fit.add_argument("--net-arch", default="128,128", metavar="W,W", help="hidden layer widths (128,128)")
    fit.add_argument("--epochs", type=int, default=20, help="passes over the decisions (20)")
    fit.add_argument("--seed", type=int, default=0, help="seeds the network and the minibatches (0)")
    fit.add_argument("--human-data", action="store_true",
                     help="the export holds real people's decisions: only then is a proxy a human proxy")
    fit.set_defaults(func=cmd_proxy_fit)


def _widths(text: str) -> tuple[int, ...]:
    try:
        widths = tuple(int(w) for w in text.split(","))
    except ValueError:
        widths = ()
    if not widths or any(not 1 <= w <= 4096 for w in widths):
        raise ValueError(f"--net-arch {text!r}: give layer widths 1..4096 separated by commas, e.g. 128,128")
    return widths


def cmd_proxy_fit(args) -> int:
    if args.epochs < 1:
        raise ValueError(f"--epochs {args.epochs}: passes over the decisions, an integer >= 1")
    report = fit_proxies(args.export, args.out, net_arch=_widths(args.net_arch), epochs=args.epochs,
                         seed=args.seed, human_data=args.human_data)
    kind = "human proxies" if args.human_data else "behaviour-cloning proxies (not marked as human data)"
    for split, about in report["proxies"].items():
        own, other = about["agreement_own_split"], about["agreement_other_split"]
        print(f"proxy_{split}: {about['decisions']} decisions of participants {about['participants']}; "
              f"agrees with {own:.3f} of its own split's moves"
              + (f", {other:.3f} of the other split's" if other is not None else ""))
    print(f"wrote {kind} to {args.out} (proxy_train, proxy_test, proxy.json)")
    return 0
