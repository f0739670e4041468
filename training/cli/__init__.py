"""The ``braincards`` command line (:mod:`.main`), one module per command group."""
