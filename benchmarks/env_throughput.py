"""Env throughput benchmark (run by hand: `make bench`, or `braincards bench`).

Random legal play through the public AEC API for The Brain (2-4 players), Oh My Brain
and Brilliant Boar (3 players), and PettingZoo's own connect_four_v3 and
leduc_holdem_v4 in the same process; prints decisions/s and the ratio to leduc.
"""

import sys

from braincards.training.evaluation.bench import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
