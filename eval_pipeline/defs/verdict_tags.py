"""The release verdict as a run tag: ``verdict=go``, ``verdict=no-go`` or ``verdict=error``.

Why a tag: a build the gate blocks fails its run (its blocking checks fail with severity
ERROR), exactly as a run that crashed does; in the Runs list and on a run's page only the
tags tell the two apart. The gate asset tags its run with its decision (``tag_release``)
before its checks are evaluated; a step that fails before any decision (a runner or scorer
crash, a missing score, a suite that does not load) tags the run ``error`` through the jobs'
failure hook (``verdict_on_failure``). The hook runs inside the run, on every executor, so
the tag is there without the daemon; it never overwrites a decision the gate already made
(the gate's own step fails after tagging ``no-go``).
"""

import dagster as dg

VERDICT_TAG = "verdict"
"""The run tag holding the release verdict."""
GO, NO_GO, ERROR = "go", "no-go", "error"


def tag_release(context: dg.AssetExecutionContext, release_allowed: bool) -> str:
    """Tag the current run ``verdict=go`` or ``verdict=no-go``; the value set."""
    value = GO if release_allowed else NO_GO
    context.instance.add_run_tags(context.run_id, {VERDICT_TAG: value})
    return value


@dg.failure_hook(name="verdict_on_failure")
def verdict_on_failure(context: dg.HookContext) -> None:
    """Tag a run whose step failed before the gate decided ``verdict=error``."""
    run = context.instance.get_run_by_id(context.run_id)
    if run is not None and VERDICT_TAG not in run.tags:
        context.instance.add_run_tags(context.run_id, {VERDICT_TAG: ERROR})
