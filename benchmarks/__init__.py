"""The experiment side: speed and learning benchmarks, and the generators of the docs' result
pages. Each script runs as ``python benchmarks/NAME.py`` (or ``python -m benchmarks.NAME``);
what they measure is data, in ``configs/experiments.yaml`` (:mod:`.experiments`)."""
