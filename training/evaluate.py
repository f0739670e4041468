"""Seat policies at a table and measure them.

* :func:`evaluate` - N games with the given seats (rotated across games), per-policy win
  rate (Wilson 95% CI), mean reward and mean score (t 95% CI), mean game length, and for The
  Brain the team win rate per difficulty.
* :func:`crossplay` - cooperative cross-play matrix (every pair, every mixed seat
  assignment), CSV + heatmap PNG.
* :func:`league` - round-robin between competitive policies, openskill ratings as Markdown
  and CSV.

Seat rotation: game ``g`` puts ``seats[j]`` at player ``(j - rotation(g)) mod n``, where
``rotation(g) = g mod n`` (with a list of V difficulties that shares a factor with n, one
more step after every lcm(V, n) games, so that each difficulty sees every rotation too).
Every policy therefore plays every position equally often whenever the number of games is
a multiple of n. Game ``g`` has difficulty ``g mod V``.

Reproducibility: game ``g`` of a run with seed ``S`` is dealt with env seed
``derive_seed(S, g)`` and the policy in seat ``i`` is reset with ``derive_seed(S, g, 1, i)``;
nothing else is random. So a game's result depends only on (S, g, who sits where), runs
with ``workers=k`` processes give exactly the serial results, and every cross-play cell sees
the same deals.
"""

from __future__ import annotations

import contextlib
import csv
import itertools
import math
import multiprocessing
import signal
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import numpy as np

from .checkpoint import make_table
from .policies import check_env_options, history_k_of, make_policy, spec_label
from .stats import fmt_interval, interval_dict, t_interval, wilson_interval

COOPERATIVE_GAMES = ("the_brain_v0",)
COMPETITIVE_GAMES = ("oh_my_brain_v0", "brilliant_boar_v0")


# ---------------------------------------------------------------------------- helpers
def game_id(name: str) -> str:
    """``"the_brain"`` or ``"the_brain_v0"`` -> ``"the_brain_v0"`` (validated)."""
    from braincards.envs import ENVS

    candidate = name if name in ENVS else f"{name}_v0"
    if candidate not in ENVS:
        raise ValueError(f"unknown game {name!r}; known games: {sorted(ENVS)}")
    return candidate


def derive_seed(*parts: int) -> int:
    """A 32-bit seed derived from non-negative ints (numpy's SeedSequence hashing)."""
    ints = [int(p) for p in parts]
    if any(p < 0 for p in ints):
        raise ValueError(f"seeds must be non-negative integers, got {parts}")
    return int(np.random.SeedSequence(ints).generate_state(1, dtype=np.uint32)[0])


def _variants(game: str, config: dict) -> list[dict]:
    """The Brain accepts ``difficulty`` as a list: games cycle through its values."""
    diff = config.get("difficulty")
    if game == "the_brain_v0" and isinstance(diff, (list, tuple)):
        if not diff:
            raise ValueError("difficulty list is empty")
        seen = [str(d) for d in diff]
        dups = sorted({d for d in seen if seen.count(d) > 1})
        if dups:
            raise ValueError(f"difficulty list names {dups} more than once")
        return [{**config, "difficulty": d} for d in diff]
    return [dict(config)]


def rotation(g: int, n: int, num_variants: int = 1) -> int:
    """How many places game ``g`` rotates the seats (see the module docstring).

    ``g mod n`` puts every policy at every position once in each block of n games. Game g
    has variant ``g mod V``; when V and n share a factor, variant v would only ever meet
    some rotations, so the rotation moves one step further after every lcm(V, n) games."""
    step = g // math.lcm(num_variants, n) if math.gcd(num_variants, n) > 1 else 0
    return (g + step) % n


def _check_config(game: str, config: dict | None, num_seats: int | None) -> dict:
    from braincards.envs import make

    config = dict(config or {})
    for key in ("render_mode",):
        config.pop(key, None)
    check_env_options(game, config)
    if num_seats is not None:
        n = config.setdefault("num_players", num_seats)
        if n != num_seats:
            raise ValueError(
                f"config has num_players={n} but {num_seats} seats were given; give one --seat "
                f"per player"
            )
    for variant in _variants(game, config):
        make(game, **variant).close()  # validates the config (clear ValueError)
    return config


def _progress(total: int, enabled: bool | None, desc: str):
    from tqdm import tqdm

    if enabled is None:
        enabled = sys.stderr.isatty()
    return tqdm(total=total, desc=desc, disable=not enabled, leave=False, file=sys.stderr)


# ---------------------------------------------------------------------------- one table
class _Table:
    """Plays tasks ``(key, deal, variant, labels)``; keeps envs and policies between games.

    ``deal`` picks the seeds (env and policies), ``key`` identifies the task in results."""

    def __init__(self, game: str, config: dict, specs: dict, seed: int, deterministic: bool):
        self.game = game
        self.variants = _variants(game, config)
        self.specs = specs
        self.seed = seed
        self.deterministic = deterministic
        self._envs: dict[int, object] = {}
        self._policies: dict[tuple, object] = {}

    def env(self, variant: int, history_k: int = 0):
        """The table of ``variant``; behind the game's history wrapper when a seated policy
        reads event history (every policy then gets the prefix of the observation it reads)."""
        key = (variant, history_k)
        if key not in self._envs:
            self._envs[key] = make_table(self.game, self.variants[variant], history_k)
        return self._envs[key]

    def policy(self, label: str, seat: int, variant: int):
        key = (label, seat, variant)
        if key not in self._policies:
            self._policies[key] = make_policy(self.specs[label], self.game, self.variants[variant],
                                              deterministic=self.deterministic)  # fmt: skip
        return self._policies[key]

    def play(self, task: tuple) -> dict:
        key, deal, variant, labels = task
        seated = [self.policy(label, i, variant) for i, label in enumerate(labels)]
        raw = self.env(variant, history_k_of(seated))
        raw.reset(seed=derive_seed(self.seed, deal))
        agents = raw.possible_agents
        if len(labels) != len(agents):
            raise ValueError(f"{len(labels)} seats for {len(agents)} players")
        base = raw.unwrapped.layout.size
        pols, sizes = {}, {}
        for i, (agent, pol) in enumerate(zip(agents, seated, strict=True)):
            pol.reset(seed=derive_seed(self.seed, deal, 1, i))
            pols[agent] = pol
            sizes[agent] = getattr(pol, "observation_size", base)
        length = 0
        # the game's return per seat: every step's rewards, summed (an env with shaped
        # per-step rewards, e.g. Oh My Brain's brain_shaping, pays some before the end)
        returns = dict.fromkeys(agents, 0.0)
        while True:
            agent = raw.agent_selection
            if raw.terminations[agent] or raw.truncations[agent]:
                break
            obs = raw.observe(agent)
            if obs["observation"].shape[0] > sizes[agent]:
                obs = {"observation": obs["observation"][: sizes[agent]], "action_mask": obs["action_mask"]}
            raw.step(pols[agent].act(obs, agent))
            length += 1
            for a in agents:
                returns[a] += float(raw.rewards[a])
        rewards = [returns[a] for a in agents]
        truncated = any(raw.truncations[a] for a in agents)
        scores = game_scores(self.game, raw.unwrapped)
        return {
            "key": key,
            "deal": deal,
            "variant": variant,
            "labels": list(labels),
            "rewards": rewards,
            "scores": scores,
            "wins": game_wins(self.game, raw.unwrapped, rewards, scores, truncated),
            "length": length,
            "truncated": truncated,
        }


def game_scores(game: str, raw) -> list[float]:
    """Per-seat game score at the end: The Brain - cards out of play (36 = every card
    played; shared by the team); Oh My Brain - brains; Brilliant Boar - points (cards won
    minus the hand penalty, R-W7/R-W8). Falls back to the rewards."""
    s = raw.state
    n = len(raw.possible_agents)
    try:
        if game == "the_brain_v0":
            held = len(s.deck) + sum(len(h) for h in s.hands) + sum(len(d) for d in s.domains)
            return [float(36 - held)] * n
        if game == "oh_my_brain_v0":
            return [float(b) for b in s.brains[:n]]
        if game == "brilliant_boar_v0":
            from braincards.envs.brilliant_boar import rules

            return [float(x) for x in rules.scores(s)[:n]]
    except (AttributeError, ImportError, TypeError):
        pass
    return [float(raw._cumulative_rewards[a]) for a in raw.possible_agents]


def game_wins(game: str, raw, rewards, scores, truncated: bool) -> list[bool]:
    """Who won the game. The Brain (and a solo game): the reward is positive (the team
    won; solo Brilliant Boar: a positive score). Competitive games with 2+ players: the
    seat is among those with the most brains/points, and not everyone tied (R-O10, R-W7) -
    read from the scores, so neither Brilliant Boar's ``reward="score"`` nor Oh My Brain's
    ``brain_shaping`` changes who won. A truncated game has no winner."""
    if truncated:
        return [False] * len(rewards)
    if game in COMPETITIVE_GAMES and len(scores) > 1:
        best = max(scores)
        if all(x == best for x in scores):
            return [False] * len(scores)
        return [x == best for x in scores]
    return [r > 0 for r in rewards]


# ---------------------------------------------------------------------------- running
class WorkerError(RuntimeError):
    """A worker process of a parallel run ended abruptly (killed by a signal, out of memory):
    the run is stopped and its results are discarded."""


_WORKER_TABLE: _Table | None = None


def _worker_init(game, config, specs, seed, deterministic):
    # The parent stops the workers itself on Ctrl-C or SIGTERM. A worker ignores SIGINT (a
    # terminal sends Ctrl-C to the whole process group: no traceback from every worker) and
    # takes SIGTERM's default action (it may have inherited the parent's handler by fork).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    global _WORKER_TABLE
    _WORKER_TABLE = _Table(game, config, specs, seed, deterministic)


def _worker_run(tasks):
    return [_WORKER_TABLE.play(t) for t in tasks]


@contextlib.contextmanager
def _sigterm_raises_systemexit():
    """While workers run, SIGTERM raises ``SystemExit(143)`` in the main thread instead of
    ending the process at once (which would orphan the workers), so the ``finally`` that
    stops them runs. Only where SIGTERM has its default action and in the main thread (a
    program with its own SIGTERM handler keeps it)."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL):  # fmt: skip
        yield
        return

    def handler(signum, frame):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one must not cut the cleanup
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _pool_processes(ex: ProcessPoolExecutor) -> list:
    """The pool's worker processes (CPython keeps them in ``_processes``; with fork they all
    start at the first submit)."""
    return list((getattr(ex, "_processes", None) or {}).values())


def _stop_pool(ex: ProcessPoolExecutor, procs: list) -> None:
    """Stop a pool now: end the workers (SIGTERM, then SIGKILL after 5 s), wait for them,
    then cancel the games not started and wait for the pool's own thread."""
    for p in procs:
        if p.exitcode is None:
            p.terminate()
    for p in procs:
        p.join(5)
        if p.exitcode is None:
            p.kill()
            p.join()
    ex.shutdown(wait=True, cancel_futures=True)


def _exit_description(p) -> str:
    code = p.exitcode
    if code is None:
        return f"{p.pid}"
    if code < 0:
        try:
            return f"{p.pid} (killed by {signal.Signals(-code).name})"
        except ValueError:
            return f"{p.pid} (killed by signal {-code})"
    return f"{p.pid} (exit status {code})"


def run_tasks(game: str, config: dict, specs: dict, tasks: list, *, seed: int, workers: int = 1,
              deterministic: bool = True, progress: bool | None = None,
              desc: str = "games") -> list[dict]:  # fmt: skip
    """Play every task (serially or in ``workers`` processes); records in task order.

    With workers, the first error (a policy raising, Ctrl-C, SIGTERM) stops the run at once:
    the games not yet played are cancelled, the workers are ended and waited for, and the
    error is raised. A worker that dies (killed, out of memory) raises :class:`WorkerError`.
    """
    workers = int(workers)
    if workers < 1:
        raise ValueError(f"workers={workers} must be >= 1")
    if workers == 1 or len(tasks) < 2:
        bar = _progress(len(tasks), progress, desc)
        try:
            table = _Table(game, config, specs, seed, deterministic)
            out = []
            for t in tasks:
                out.append(table.play(t))
                bar.update(1)
            return out
        finally:
            bar.close()
    size = max(1, min(50, math.ceil(len(tasks) / (workers * 8))))
    chunks = [tasks[i : i + size] for i in range(0, len(tasks), size)]
    results: list[dict] = []
    # fork where the platform has it: works from any script, REPL or stdin (spawn re-imports
    # the main module); every game's seeds come from its task, so the start method cannot
    # change a result. The pool starts before the progress bar's thread does.
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(method)
    with _sigterm_raises_systemexit():
        ex = ProcessPoolExecutor(workers, mp_context=ctx, initializer=_worker_init,
                                 initargs=(game, config, specs, seed, deterministic))  # fmt: skip
        procs: list = []
        finished = False
        try:
            futures = [ex.submit(_worker_run, c) for c in chunks]
            procs = _pool_processes(ex)
            bar = _progress(len(tasks), progress, desc)
            try:
                for fut in as_completed(futures):
                    recs = fut.result()
                    results.extend(recs)
                    bar.update(len(recs))
            finally:
                bar.close()
            finished = True
        except BrokenProcessPool as err:
            dead = [_exit_description(p) for p in procs if p.exitcode is not None]
            raise WorkerError(
                f"worker process {', '.join(dead) or '(unknown pid)'} ended abruptly while "
                f"playing games; the run was stopped and its results discarded (the "
                f"out-of-memory killer sends SIGKILL: with little memory use fewer workers)"
            ) from err
        finally:
            if finished:
                ex.shutdown(wait=True)
            else:
                _stop_pool(ex, procs or _pool_processes(ex))
    order = {t[0]: k for k, t in enumerate(tasks)}
    results.sort(key=lambda r: order[r["key"]])
    return results


def _labels(seats: Sequence) -> tuple[list[str], dict]:
    labels, specs = [], {}
    for s in seats:
        label = spec_label(s)
        if label in specs and specs[label] is not s and not isinstance(s, str):
            raise ValueError(f"two different policies share the name {label!r}")
        specs.setdefault(label, s)
        labels.append(label)
    return labels, specs


def _validate_specs(game: str, config: dict, specs: dict) -> None:
    """Resolve every spec once now, so a bad one fails before any game is played."""
    variant = _variants(game, config)[0]
    for spec in specs.values():
        make_policy(spec, game, variant)


# ---------------------------------------------------------------------------- evaluate
def _summary(records: list[dict], labels_all: list[str], variants: list[dict], game: str) -> dict:
    per: dict[str, dict[str, list]] = {}
    for label in labels_all:
        per.setdefault(label, {"wins": [], "rewards": [], "scores": []})
    for r in records:
        for label, w, rew, sc in zip(r["labels"], r["wins"], r["rewards"], r["scores"], strict=True):
            per[label]["wins"].append(bool(w))
            per[label]["rewards"].append(rew)
            per[label]["scores"].append(sc)
    policies = {}
    for label, d in per.items():
        n = len(d["wins"])
        policies[label] = {
            "seat_games": n,
            "wins": int(sum(d["wins"])),
            "win_rate": interval_dict(wilson_interval(int(sum(d["wins"])), n)),
            "mean_reward": interval_dict(t_interval(d["rewards"])),
            "mean_score": interval_dict(t_interval(d["scores"])),
        }
    out = {
        "games": len(records),
        "policies": policies,
        "mean_length": interval_dict(t_interval([r["length"] for r in records])),
        "truncated": sum(1 for r in records if r["truncated"]),
    }
    if game in COOPERATIVE_GAMES:
        team_wins = [bool(r["wins"][0]) for r in records]
        out["team"] = {
            "win_rate": interval_dict(wilson_interval(sum(team_wins), len(records))),
            "mean_score": interval_dict(t_interval([r["scores"][0] for r in records])),
        }
        by = {}
        for v, cfg in enumerate(variants):
            recs = [r for r in records if r["variant"] == v]
            key = str(cfg.get("difficulty", "amateur"))
            by[key] = {
                "games": len(recs),
                "win_rate": interval_dict(wilson_interval(sum(bool(r["wins"][0]) for r in recs), len(recs))),
                "mean_score": interval_dict(t_interval([r["scores"][0] for r in recs])),
            }
        out["team"]["by_difficulty"] = by
    return out


def evaluate(
    game: str,
    config: dict | None = None,
    seats: Sequence = ("random", "random"),
    games: int = 100,
    seed: int = 0,
    workers: int = 1,
    *,
    deterministic: bool = True,
    progress: bool | None = None,
    return_records: bool = False,
) -> dict:
    """Play ``games`` games with one policy (or spec) per seat and summarise them.

    Seats rotate across games (game g puts ``seats[j]`` at player ``(j - g) mod n``; see the
    module docstring for a difficulty list), so each policy plays every position equally
    often when ``games`` is a multiple of n. For The Brain ``config["difficulty"]`` may be a
    list: game g has difficulty ``g mod V`` (``by_difficulty`` in the result).
    Returns a JSON-safe dict: ``policies[label]`` with ``win_rate`` (Wilson 95% CI),
    ``mean_reward`` and ``mean_score`` (t 95% CI) over the seat-games it played;
    ``mean_length`` (decisions per game), ``truncated``; ``team`` for cooperative games.
    """
    game = game_id(game)
    seats = list(seats)
    if not seats:
        raise ValueError("give at least one seat")
    games = int(games)
    if games < 1:
        raise ValueError(f"games={games} must be >= 1")
    derive_seed(seed)
    config = _check_config(game, config, len(seats))
    labels, specs = _labels(seats)
    _validate_specs(game, config, specs)
    variants = _variants(game, config)
    n = len(seats)
    tasks = []
    for g in range(games):
        v = g % len(variants)
        r = rotation(g, n, len(variants))
        assignment = tuple(labels[(i + r) % n] for i in range(n))
        tasks.append((g, g, v, assignment))
    records = run_tasks(game, config, specs, tasks, seed=seed, workers=workers,
                        deterministic=deterministic, progress=progress, desc=f"evaluate {game}")  # fmt: skip
    result = {
        "game": game,
        "config": config,
        "seats": labels,
        "seed": seed,
        "deterministic": deterministic,
        **_summary(records, labels, variants, game),
    }
    if return_records:
        result["records"] = records
    return result


def format_evaluation(result: dict) -> str:
    """A readable text report of :func:`evaluate`'s result."""
    cfg = ", ".join(f"{k}={v}" for k, v in result["config"].items())
    lines = [
        f"{result['game']} ({cfg}): {result['games']} games, seed {result['seed']}, "
        f"seats {' | '.join(result['seats'])}",
        "",
        "| policy | seat-games | win rate (95% CI) | mean reward (95% CI) | mean score (95% CI) |",
        "|---|---|---|---|---|",
    ]
    for label, d in result["policies"].items():
        lines.append(
            f"| {label} | {d['seat_games']} | {fmt_interval(d['win_rate'])} | "
            f"{fmt_interval(d['mean_reward'])} | {fmt_interval(d['mean_score'], 2)} |"
        )
    if "team" in result:
        t = result["team"]
        lines += ["", f"team win rate: {fmt_interval(t['win_rate'])}  mean cards played out: "
                  f"{fmt_interval(t['mean_score'], 2)}"]  # fmt: skip
        if len(t["by_difficulty"]) > 1:
            for d, v in t["by_difficulty"].items():
                lines.append(f"  {d}: {fmt_interval(v['win_rate'])} ({v['games']} games)")
    lines.append(
        f"mean game length: {fmt_interval(result['mean_length'], 1)} decisions; "
        f"truncated games: {result['truncated']}"
    )
    return "\n".join(lines)


# ---------------------------------------------------------------------------- crossplay
def _mixed_assignments(a: str, b: str, n: int) -> list[tuple[str, ...]]:
    if a == b:
        return [(a,) * n]
    return [t for t in itertools.product((a, b), repeat=n) if a in t and b in t]


def crossplay(
    game: str,
    config: dict | None = None,
    policies: Sequence = (),
    games: int = 100,
    seed: int = 0,
    workers: int = 1,
    *,
    out_dir: str | Path | None = None,
    deterministic: bool = True,
    progress: bool | None = None,
) -> dict:
    """Cross-play matrix of cooperative policies (zero-shot coordination).

    Cell (A, B) plays ``games`` games in which both A and B sit at the table: with 2 players
    A|B and B|A, with 3-4 players every assignment of A and B to the seats that uses both,
    cycling over them. The diagonal is self-play. Game g of every cell is dealt from the same
    seed, so every cell sees the same deals. Returns ``{"policies", "win_rate", "mean_score",
    "games", ...}`` where the matrices are lists of lists of ``{value, lo, hi}``; with
    ``out_dir`` also writes ``crossplay.csv`` and ``crossplay.png`` (heatmap).
    """
    game = game_id(game)
    if game not in COOPERATIVE_GAMES:
        raise ValueError(f"cross-play is for cooperative games ({list(COOPERATIVE_GAMES)}); "
                         f"for {game} use league()")  # fmt: skip
    policies = list(policies)
    if len(policies) < 2:
        raise ValueError("cross-play needs at least two policies")
    config = dict(config or {})
    n = int(config.setdefault("num_players", 2))
    if n < 2:
        raise ValueError("cross-play needs num_players >= 2 (a solo game has no partner)")
    if isinstance(config.get("difficulty"), (list, tuple)):
        raise ValueError("cross-play takes one difficulty; run it once per difficulty")
    config = _check_config(game, config, None)
    labels, specs = _labels(policies)
    if len(set(labels)) != len(labels):
        raise ValueError(f"policies must be distinct, got {labels}")
    _validate_specs(game, config, specs)
    games = int(games)
    if games < 1:
        raise ValueError(f"games={games} must be >= 1")
    derive_seed(seed)
    cells = [(i, j) for i in range(len(labels)) for j in range(i, len(labels))]
    tasks = []
    for c, (i, j) in enumerate(cells):
        assigns = _mixed_assignments(labels[i], labels[j], n)
        for g in range(games):
            # key c*games+g names the cell; the deal is g in every cell (same deals)
            tasks.append((c * games + g, g, 0, assigns[g % len(assigns)]))
    records = run_tasks(game, config, specs, tasks, seed=seed, workers=workers,
                        deterministic=deterministic, progress=progress, desc=f"crossplay {game}")  # fmt: skip
    k = len(labels)
    win = [[None] * k for _ in range(k)]
    score = [[None] * k for _ in range(k)]
    counts = [[0] * k for _ in range(k)]
    for c, (i, j) in enumerate(cells):
        recs = [r for r in records if r["key"] // games == c]
        w = interval_dict(wilson_interval(sum(bool(r["wins"][0]) for r in recs), len(recs)))
        s = interval_dict(t_interval([r["scores"][0] for r in recs]))
        win[i][j] = win[j][i] = w
        score[i][j] = score[j][i] = s
        counts[i][j] = counts[j][i] = len(recs)
    result = {"game": game, "config": config, "seed": seed, "policies": labels,
              "games": counts, "win_rate": win, "mean_score": score}  # fmt: skip
    if out_dir is not None:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        write_crossplay_csv(result, out / "crossplay.csv")
        plot_crossplay(result, out / "crossplay.png")
        result["files"] = [str(out / "crossplay.csv"), str(out / "crossplay.png")]
    return result


def write_crossplay_csv(result: dict, path: Path) -> None:
    labels = result["policies"]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["policy_a", "policy_b", "games", "win_rate", "win_lo", "win_hi",
                    "mean_score", "score_lo", "score_hi"])  # fmt: skip
        for i, a in enumerate(labels):
            for j, b in enumerate(labels):
                wr, sc = result["win_rate"][i][j], result["mean_score"][i][j]
                w.writerow([a, b, result["games"][i][j], f"{wr['value']:.4f}", f"{wr['lo']:.4f}",
                            f"{wr['hi']:.4f}", f"{sc['value']:.3f}", f"{sc['lo']:.3f}",
                            f"{sc['hi']:.3f}"])  # fmt: skip


def crossplay_figure(result: dict):
    """The cross-play heatmap of :func:`crossplay`'s result as a matplotlib figure: team win
    rate per pair, on a colour scale fixed to [0, 1] so that heatmaps compare by colour."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = result["policies"]
    k = len(labels)
    m = np.array([[result["win_rate"][i][j]["value"] for j in range(k)] for i in range(k)])
    fig, ax = plt.subplots(figsize=(1.6 * k + 2.5, 1.4 * k + 1.8))
    im = ax.imshow(m, vmin=0.0, vmax=1.0, cmap="viridis")
    ax.set_xticks(range(k), labels, rotation=30, ha="right")
    ax.set_yticks(range(k), labels)
    ax.set_xlabel("policy B (its partner)")
    ax.set_ylabel("policy A")
    for i in range(k):
        for j in range(k):
            d = result["win_rate"][i][j]
            ax.text(j, i, f"{d['value']:.3f}\n[{d['lo']:.3f}, {d['hi']:.3f}]", ha="center",
                    va="center", fontsize=8, color="white" if m[i, j] < 0.6 else "black")  # fmt: skip
    cfg = result["config"]
    ax.set_title(f"{result['game']} cross-play team win rate\n"
                 f"{cfg.get('num_players')} players, {cfg.get('difficulty', 'amateur')}, "
                 f"{result['games'][0][0]} games per cell")  # fmt: skip
    fig.colorbar(im, ax=ax, label="team win rate (A and B at one table)")
    fig.tight_layout()
    return fig


def plot_crossplay(result: dict, path: Path) -> None:
    """Write :func:`crossplay_figure` as a PNG."""
    import matplotlib.pyplot as plt

    fig = crossplay_figure(result)
    try:
        fig.savefig(path, dpi=120)
    finally:
        plt.close(fig)


def format_crossplay(result: dict) -> str:
    labels = result["policies"]
    lines = ["| team win rate | " + " | ".join(labels) + " |", "|---" * (len(labels) + 1) + "|"]
    for i, a in enumerate(labels):
        cells = [fmt_interval(result["win_rate"][i][j]) for j in range(len(labels))]
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# ---------------------------------------------------------------------------- league
def league(
    game: str,
    config: dict | None = None,
    policies: Sequence = (),
    games: int = 100,
    seed: int = 0,
    workers: int = 1,
    *,
    out_dir: str | Path | None = None,
    deterministic: bool = True,
    progress: bool | None = None,
) -> dict:
    """Round-robin between competitive policies with openskill (Plackett-Luce) ratings.

    With ``num_players`` n (default 2), every group of n distinct policies plays ``games``
    games, seats rotating. Games are rated in a fixed order (so the table is reproducible
    and identical with workers), ranking seats by reward then score. Returns ``{"table":
    [rows], ...}``; each row has the policy, mu, sigma, ordinal (mu - 3 sigma), a 95%
    interval of mu (mu +- 1.96 sigma), games played, wins. With ``out_dir`` also writes
    ``ratings.md`` and ``ratings.csv``.
    """
    from openskill.models import PlackettLuce

    game = game_id(game)
    if game not in COMPETITIVE_GAMES:
        raise ValueError(f"a league rates competitive games ({list(COMPETITIVE_GAMES)}); "
                         f"{game} is cooperative: use crossplay()")  # fmt: skip
    policies = list(policies)
    config = dict(config or {})
    n = int(config.setdefault("num_players", 2))
    if n < 2:
        raise ValueError("a league needs num_players >= 2")
    labels, specs = _labels(policies)
    if len(set(labels)) != len(labels):
        raise ValueError(f"policies must be distinct, got {labels}")
    if len(labels) < n:
        raise ValueError(f"a {n}-player league needs at least {n} distinct policies, got {len(labels)}")
    config = _check_config(game, config, None)
    _validate_specs(game, config, specs)
    games = int(games)
    if games < 1:
        raise ValueError(f"games={games} must be >= 1")
    derive_seed(seed)
    groups = list(itertools.combinations(labels, n))
    tasks = []
    for gi, group in enumerate(groups):
        for g in range(games):
            tasks.append((gi * games + g, g, 0, tuple(group[(i + g) % n] for i in range(n))))
    records = run_tasks(game, config, specs, tasks, seed=seed, workers=workers,
                        deterministic=deterministic, progress=progress, desc=f"league {game}")  # fmt: skip
    model = PlackettLuce()
    ratings = {label: model.rating(name=label) for label in labels}
    played = dict.fromkeys(labels, 0)
    wins = dict.fromkeys(labels, 0)
    for r in records:
        keys = [(rew, sc) for rew, sc in zip(r["rewards"], r["scores"], strict=True)]
        order = sorted(set(keys), reverse=True)
        ranks = [order.index(k) for k in keys]
        teams = [[ratings[label]] for label in r["labels"]]
        new = model.rate(teams, ranks=ranks)
        for label, team, w in zip(r["labels"], new, r["wins"], strict=True):
            ratings[label] = team[0]
            played[label] += 1
            wins[label] += bool(w)
    table = []
    for label in labels:
        rt = ratings[label]
        table.append({
            "policy": label, "mu": rt.mu, "sigma": rt.sigma, "ordinal": rt.mu - 3 * rt.sigma,
            "mu_lo": rt.mu - 1.96 * rt.sigma, "mu_hi": rt.mu + 1.96 * rt.sigma,
            "games": played[label], "wins": wins[label],
            "win_rate": interval_dict(wilson_interval(wins[label], played[label])),
        })  # fmt: skip
    table.sort(key=lambda row: (-row["ordinal"], row["policy"]))
    result = {"game": game, "config": config, "seed": seed, "games_per_group": games,
              "groups": [list(g) for g in groups], "table": table}  # fmt: skip
    if out_dir is not None:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "ratings.md").write_text(format_league(result) + "\n")
        with open(out / "ratings.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["rank", "policy", "mu", "sigma", "ordinal", "mu_lo", "mu_hi", "games",
                        "wins", "win_rate", "win_lo", "win_hi"])  # fmt: skip
            for k, row in enumerate(table, 1):
                wr = row["win_rate"]
                w.writerow([k, row["policy"], f"{row['mu']:.3f}", f"{row['sigma']:.3f}",
                            f"{row['ordinal']:.3f}", f"{row['mu_lo']:.3f}", f"{row['mu_hi']:.3f}",
                            row["games"], row["wins"], f"{wr['value']:.4f}", f"{wr['lo']:.4f}",
                            f"{wr['hi']:.4f}"])  # fmt: skip
        result["files"] = [str(out / "ratings.md"), str(out / "ratings.csv")]
    return result


def format_league(result: dict) -> str:
    cfg = ", ".join(f"{k}={v}" for k, v in result["config"].items())
    lines = [
        f"openskill (Plackett-Luce) ratings, {result['game']} ({cfg}), "
        f"{result['games_per_group']} games per group, seed {result['seed']}",
        "",
        "| rank | policy | mu | sigma | 95% interval of mu | ordinal (mu-3sigma) | games | win rate (95% CI) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for k, row in enumerate(result["table"], 1):
        lines.append(
            f"| {k} | {row['policy']} | {row['mu']:.2f} | {row['sigma']:.2f} | "
            f"[{row['mu_lo']:.2f}, {row['mu_hi']:.2f}] | {row['ordinal']:.2f} | {row['games']} | "
            f"{fmt_interval(row['win_rate'])} |"
        )
    return "\n".join(lines)

