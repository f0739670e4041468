"""The benchmark protocol (``braincards benchmark``): versioned suites of scenarios, scores
normalised per scenario, rliable aggregates, paired comparisons and the scorecard.

* :mod:`.suites` - the suite files (``suite_files/<game>-v<N>.yaml``): loading and validation;
* :mod:`.scenarios` - one scenario's games as harness tasks, its focal metric, its references;
* :mod:`.scoring` - normalisation, rliable's IQM/mean/profile, the paired comparison;
* :mod:`.runner` - every scenario of a suite for one policy, resumable from ``OUT/partial``;
* :mod:`.scorecard` - :func:`~.scorecard.benchmark`: the scorecard of one policy (and a second);
* :mod:`.report` - the scorecard as Markdown and JSON, and its PNG plots.
"""
