"""Behaviour-cloning proxies of the people in a study (``braincards proxy fit``).

A study's export (``braincards study-export``: ``decisions.npz`` and its manifest, split by
participant) is fitted twice, as Overcooked-AI builds its human proxies:

* the **train proxy**, on the train split's decisions: a partner that training may use;
* the **test proxy**, on the test split's decisions: seated only in evaluation, so that a
  score with it measures play with people that no training run saw.

Each is the network of a braincards checkpoint (``proxy_train``, ``proxy_test``): SB3's
masked actor-critic, fitted by masked cross-entropy to the people's moves (the value head is
not trained: the export has no returns). Its metadata says what it was fitted on
(``proxy``: the split, its participants and decisions, the export's game and conditions,
and ``human_data``). A proxy is a *human* proxy only when its export holds real people's
decisions: ``human_data`` is true only when the fit is told so (``--human-data``); an export
of scripted players makes a behaviour-cloning proxy, nothing more. ``proxy.json`` reports
each proxy's agreement with the moves of its own split and of the other one.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from braincards.envs import table_config
from braincards.training import files

from ..agents.checkpoint import network_description, write_checkpoint
from ..agents.network import set_torch_threads
from .pretrain import fit_minibatches

SPLITS = ("train", "test")


def read_export(folder: str | Path) -> tuple[dict, dict]:
    """The manifest and arrays of a study export (a ValueError naming what is missing)."""
    folder = Path(folder)
    for name in ("decisions.json", "decisions.npz"):
        if not (folder / name).is_file():
            raise ValueError(f"{folder}: no {name}; export a study first (braincards study-export)")
    manifest = json.loads((folder / "decisions.json").read_text())
    if manifest.get("format") != 1:
        raise ValueError(f"{folder}/decisions.json: export format {manifest.get('format')!r}; this braincards reads 1")
    with np.load(folder / "decisions.npz") as data:
        arrays = {k: data[k] for k in data.files}
    return manifest, arrays


def new_network(table, net_arch: list[int], seed: int) -> MaskableActorCriticPolicy:
    """A fresh masked actor-critic for ``table``'s spaces (tanh MLP heads of ``net_arch``)."""
    torch.manual_seed(seed)
    env = table.table()
    agent = env.possible_agents[0]
    policy = MaskableActorCriticPolicy(env.observation_space(agent)["observation"], env.action_space(agent),
                                       lambda _: 1e-3, net_arch={"pi": list(net_arch), "vf": list(net_arch)},
                                       activation_fn=nn.Tanh)
    env.close()
    return policy


def agreement(policy, arrays: dict, rows: np.ndarray) -> float | None:
    """The share of ``rows`` where the policy's most likely legal action is the person's."""
    if not rows.any():
        return None
    obs = torch.as_tensor(arrays["observation"][rows])
    masks = torch.as_tensor(arrays["action_mask"][rows]).bool()
    with torch.no_grad():
        logits = policy.get_distribution(obs).distribution.logits.masked_fill(~masks, -torch.inf)
    return float((logits.argmax(-1).numpy() == arrays["action"][rows]).mean())


def fit_split(table, arrays: dict, rows: np.ndarray, *, net_arch: list[int], epochs: int, batch_size: int,
              learning_rate: float, seed: int) -> MaskableActorCriticPolicy:
    """A network fitted to the people's moves in ``rows``."""
    policy = new_network(table, net_arch, seed)
    opt = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    fit = SimpleNamespace(epochs=epochs, batch_size=batch_size, value_coef=0.0, hand_coef=0.0)
    obs = torch.as_tensor(arrays["observation"][rows])
    fit_minibatches(policy, opt, fit, np.random.default_rng(seed), obs,
                    torch.as_tensor(arrays["action_mask"][rows]).bool(), torch.as_tensor(arrays["action"][rows]),
                    torch.zeros(len(obs)), None)
    return policy


def fit_proxies(export: str | Path, out: str | Path, *, net_arch: tuple[int, ...] = (128, 128), epochs: int = 20,
                batch_size: int = 256, learning_rate: float = 1e-3, seed: int = 0,
                human_data: bool = False) -> dict:
    """Fit the train and the test proxy of a study export into ``out`` (see the module
    docstring); returns the report written to ``out/proxy.json``."""
    set_torch_threads(1)
    manifest, arrays = read_export(export)
    table = table_config(manifest["game"], manifest["config"])
    report = {"export": str(export), "game": table.id, "config": table.config, "human_data": human_data,
              "net_arch": list(net_arch), "epochs": epochs, "seed": seed, "proxies": {}}
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for split in SPLITS:
        rows = arrays["test"] if split == "test" else ~arrays["test"]
        if not rows.any():
            raise ValueError(f"{export}: the {split} split has no decisions (participants: "
                             f"{manifest['split'][split]}); export with more participants or another --test-share")
        policy = fit_split(table, arrays, rows, net_arch=list(net_arch), epochs=epochs, batch_size=batch_size,
                           learning_rate=learning_rate, seed=seed)
        other = ~rows
        about = {"split": split, "participants": manifest["split"][split], "decisions": int(rows.sum()),
                 "conditions": manifest["conditions"], "human_data": human_data, "export": str(export),
                 "agreement_own_split": agreement(policy, arrays, rows),
                 "agreement_other_split": agreement(policy, arrays, other)}
        write_checkpoint(out / f"proxy_{split}", game=table.id, env_config=table.config, algo="MaskablePPO",
                         policy=network_description(policy), state_dict=policy.state_dict(), timesteps=0,
                         seed=seed, training={"behaviour_cloning": {k: report[k] for k in ("export", "net_arch",
                                                                                            "epochs", "seed")}},
                         extra={"proxy": about})
        report["proxies"][split] = {**about, "checkpoint": str(out / f"proxy_{split}")}
    files.write_text(out / "proxy.json", json.dumps(report, indent=1) + "\n")
    return report
