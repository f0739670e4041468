"""Scale-out on Ray RLlib (``braincards train CONFIG --backend rllib``, the ``rllib`` extra).

* :mod:`.env` - a braincards AEC game as an RLlib ``MultiAgentEnv`` (flat observation and
  action mask under RLlib's keys, rewards delivered to every agent that played).
* :mod:`.module` - the action-masking PPO RLModule, shaped like SB3's MaskableActorCriticPolicy.
* :mod:`.export` - a trained module -> a braincards checkpoint (and back, for ``--resume``).
* :mod:`.train` - :func:`~braincards.training.learning.rllib.train.train_rllib`.
* :mod:`.benchmark_tasks` - the benchmark's games as Ray tasks (``braincards benchmark --ray-address``).

Importing this package imports nothing from Ray; its submodules need ``ray[rllib]``.
"""
