"""One pass of the deterministic suite, for instruction counts under callgrind (issue 17's figures).

Wall and CPU times swing with the load on a shared machine; instruction counts do not. Run::

    PYTHONPATH=. valgrind --tool=callgrind python bench/score_instructions.py MODE [RUNS]

with MODE ``none`` (set-up only) or ``suite`` (every deterministic scorer on RUNS fresh runs
through ``score_run``, as ``bench score`` times them; default 1,200). The suite's count per run
is (``suite`` total - ``none`` total) / RUNS. Both first score 120 other runs (one of each
tau2 simulation), so imports and first-call set-up are in the ``none`` count too.
"""

import sys

from eval_pipeline.benchmarks.score import _cases
from eval_pipeline.scoring.registry import build_scorer, score_run, select_metric_ids


def main(mode: str, runs: int) -> None:
    """Build the cases and scorers, warm them, then score ``runs`` fresh runs if ``mode`` says."""
    cases = _cases(120 + runs, distinct_answers=True)
    warm, fresh = cases[:120], cases[120:]
    scorers = [build_scorer(metric) for metric in select_metric_ids(needs_judge=False)]
    for run, item in warm:
        score_run(run, item, scorers, build="bench")
    if mode == "suite":
        for run, item in fresh:
            score_run(run, item, scorers, build="bench")
    elif mode != "none":
        raise SystemExit(f"unknown mode {mode!r}: none or suite")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1200)
