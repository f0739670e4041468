"""Seat policies at a table and measure them.

* :mod:`.harness` - seeds, seat rotation, one table, worker processes;
* :mod:`.evaluate` - N games with one policy per seat: win rates, scores, 95% intervals;
* :mod:`.crossplay` - the cross-play matrix of cooperative policies (CSV + heatmap);
* :mod:`.league` - openskill ratings of competitive policies;
* :mod:`.oracle` - The Brain's winnable share with every card known (the ceiling);
* :mod:`.stats` - Wilson and t intervals; :mod:`.bench` - env throughput.
"""
