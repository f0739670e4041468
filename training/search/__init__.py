"""Search for The Brain: an exact perfect-information solver, the ``oracle`` command and
the PIMC search partner (``braincards.training.search.the_brain``)."""
