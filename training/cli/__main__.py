"""``python -m braincards.training.cli``: the ``braincards`` command."""

import sys

from .main import main

sys.exit(main())
