"""JSON rendering of a gate report (the **contract** shape of DESIGN.md section 9)."""

import json

from eval_pipeline.gate.decision import GateReport


def render_json(report: GateReport) -> str:
    """The report as indented JSON text."""
    return json.dumps(report.to_json(), indent=2, sort_keys=False) + "\n"
