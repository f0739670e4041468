"""Search for The Brain: :mod:`.greedy` (one turn of look-ahead), :mod:`.solver` (the exact
perfect-information solver) and :mod:`.pimc` (the PIMC search partner)."""
