"""``python -m braincards.training.cli``: the ``braincards`` command."""

import sys

from .launch import main

sys.exit(main())
