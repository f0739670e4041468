"""braincards.training: everything that plays, measures and learns, in five layers.

Each layer imports only from the layers beneath it (import-linter checks it in ``make test``):

* :mod:`.agents` - the policy protocol, the policy registry (spec strings -> policies), the
  table every game loop builds on, network policies, the checkpoint format, the rule-based
  heuristics and The Brain's search partners;
* :mod:`.evaluation` - the harness (seeds, seat rotation, worker processes), ``evaluate``,
  ``crossplay``, ``league``, ``benchmark``, the oracle's winnable share, statistics;
* :mod:`.learning` - training configs, the learner env, the evaluation schedule,
  pretraining, the SB3 trainer and the RLlib backend;
* :mod:`.serve` - ``braincards serve``: games, replays and studies in the browser;
* :mod:`.cli` - the ``braincards`` command.

Below them all, :mod:`braincards.envs` holds the games and their specs.
"""
