"""JUnit XML rendering: one testcase per metric and per budget, for CI test reporters.

A blocking decision is a ``<failure>``; an inconclusive result the tier lets through passes
with its warning in ``<system-out>``.
"""

import xml.etree.ElementTree as ET

from eval_pipeline.gate.decision import GateReport


def _case(
    suite: ET.Element, classname: str, name: str, verdict: str, blocking: bool, reason: str
) -> None:
    case = ET.SubElement(suite, "testcase", classname=classname, name=name, time="0")
    if blocking:
        failure = ET.SubElement(case, "failure", message=f"{verdict}: {reason}", type=verdict)
        failure.text = reason
    elif verdict != "pass":
        ET.SubElement(case, "system-out").text = f"{verdict} (allowed by tier): {reason}"


def render_junit(report: GateReport, suite_name: str = "release-gate") -> str:
    """The report as a JUnit XML document."""
    tests = len(report.metrics) + len(report.budgets)
    failures = sum(m.blocking for m in report.metrics) + sum(b.blocking for b in report.budgets)
    root = ET.Element("testsuites", name=suite_name, tests=str(tests), failures=str(failures))
    suite = ET.SubElement(
        root,
        "testsuite",
        name=suite_name,
        tests=str(tests),
        failures=str(failures),
        errors="0",
        skipped="0",
    )
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", name="verdict", value=report.verdict)
    ET.SubElement(properties, "property", name="tier", value=report.tier)
    for m in report.metrics:
        _case(suite, f"{suite_name}.metrics", m.metric_id, m.verdict, m.blocking, m.reason)
    for b in report.budgets:
        _case(suite, f"{suite_name}.budgets", b.budget, b.verdict, b.blocking, b.reason)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
