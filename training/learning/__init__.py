"""Training: configs, the learner env, the schedule, pretraining and the two backends.

* :mod:`.config` - the YAML training config, read once into a typed :class:`~.config.TrainConfig`;
* :mod:`.learner_env` - :class:`~.learner_env.LearnerGame` (seats, reward crediting, shaping,
  the opponent pool) and its gymnasium view :class:`~.learner_env.LearnerEnv`;
* :mod:`.schedule` - the evaluations, "best", and the snapshot schedule both backends share;
* :mod:`.pretrain` - behaviour cloning and DAgger before PPO;
* :mod:`.sb3` - the sb3-contrib MaskablePPO trainer; :mod:`.rllib` - the Ray RLlib backend.
"""
