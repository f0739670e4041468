"""Pretrained braincards policies (``braincards.checkpoints``): ``<game>/<name>.zip`` +
``.json`` in the safe checkpoint format (:mod:`braincards.training.checkpoint`), loadable by
name, e.g. ``make_policy("the_brain/ppo_3p", "the_brain_v0")`` or ``--seat the_brain/ppo_3p``."""
