"""The shipped configs (``braincards.configs``): training recipes and table configs as YAML,
``<game>/<name>.yaml``, found by name like the shipped checkpoints, e.g.
``braincards train the_brain/train_3p_quick`` or ``--config the_brain/team_3p``."""
