"""Everything that can sit at a table.

* :mod:`.policy` - the :class:`~.policy.Policy` protocol and :class:`~.policy.RandomPolicy`;
* :mod:`.specs` - policy spec strings (``"heuristic"``, ``"pimc:samples=16"``, checkpoint
  names) -> policies: :func:`~.specs.make_policy`;
* :mod:`.network` - trained networks at a table: :func:`~.network.load_policy`;
* :mod:`.checkpoint` - the checkpoint format (tensors and JSON, never a pickle);
  :mod:`.locations` - where checkpoint names are looked up;
* :mod:`.event_reader` - the recurrent event-reader network (Brilliant Boar);
* :mod:`.heuristics` - one rule-based player per game;
* :mod:`.search` - The Brain's greedy player, exact solver and PIMC partner.
"""
