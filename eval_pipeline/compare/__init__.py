"""What changed between two builds, and how a metric moved across a suite's builds.

``changes`` pairs the candidate's runs of each item with the baseline's, per metric, and sorts
the items into regressed, improved, unchanged and unpaired, ranked by effect; ``details``
fills in what a person needs to judge a row (the input and reference of the item, each run's
stored answer and tool calls); ``render`` writes it as text, Markdown or JSON. ``history``
gives a metric's mean and interval over the builds of a suite, and ``flaky`` the items whose
runs within one build disagree beyond chance. Used by ``eval-pipeline compare`` and
``history``, the HTML report's "What changed" section and the gate asset's metadata.
"""
