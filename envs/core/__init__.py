"""What every game shares: the AEC base class (:mod:`.base`), config and action checks
(:mod:`.config`), errors, the observation layout, seeded randomness (:mod:`.rng`), the rules
state's JSON round trip (:mod:`.state`), the game spec (:mod:`.spec`) and the wrappers."""
