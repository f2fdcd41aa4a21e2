"""The NIST AI RMF mapping (``report/nist_ai_rmf.yaml``, ``report/nist.py``).

Contract: every line of the shipped mapping cites a function (Govern, Map, Measure, Manage) and a
subcategory id of that function, names evidence the report shows and tiers the risk policy
knows; every tier gets all four functions; a report shows the lines of its suite's tier only,
a metric-bound line only when the suite gates the metric, each saying whether this report holds
the evidence; a malformed mapping is refused naming the file and the entry.
"""

import re
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from eval_pipeline.report.inputs import ReportInputs
from eval_pipeline.report.nist import (
    EVIDENCE,
    FUNCTIONS,
    MappingError,
    entries_for,
    load_mapping,
    nist_section,
)
from eval_pipeline.suites.risk import load_risk_policy
from eval_pipeline_tests.report.gate_reports import real_gate_report


def inputs(**report: object) -> ReportInputs:
    return ReportInputs("cand", {**real_gate_report(), **report}, pd.DataFrame(), None)


def test_every_line_cites_a_subcategory_of_its_function_and_real_evidence() -> None:
    framework, entries = load_mapping()
    assert "AI RMF 1.0" in framework
    tiers = set(load_risk_policy().tier_names)
    for entry in entries:
        assert re.fullmatch(rf"{entry.function} \d\.\d{{1,2}}", entry.id), entry.id
        assert entry.evidence in EVIDENCE and set(entry.tiers) <= tiers and entry.supports
    for tier in tiers:
        assert {e.function for e in entries if tier in e.tiers} == set(FUNCTIONS), tier


def test_a_report_shows_its_tiers_lines_and_whether_it_holds_their_evidence() -> None:
    medium = {entry.id: held for entry, held in entries_for(inputs(tier="medium"))}
    low = {entry.id: held for entry, held in entries_for(inputs(tier="low"))}
    assert "GOVERN 4.3" in medium and "GOVERN 4.3" not in low
    assert "MEASURE 2.7" not in medium  # the report gates no injection_resistance
    assert medium["MEASURE 2.13"] is False  # no judge calibration in these inputs
    assert medium["MANAGE 1.1"] is True and medium["MEASURE 2.3"] is True

    plain = inputs(tier="medium")
    injected = {**plain.report["metrics"][0], "metric_id": "injection_resistance"}
    guarded = replace(plain, report={**plain.report, "metrics": [injected]})
    assert "MEASURE 2.7" in {entry.id for entry, _ in entries_for(guarded)}
    calibrated = replace(plain, calibration={"n": 1})
    assert dict((e.id, held) for e, held in entries_for(calibrated))["MEASURE 2.13"] is True

    section = nist_section(plain)
    assert section.index(">GOVERN<") < section.index(">MAP<") < section.index(">MEASURE<")
    assert section.index(">MEASURE<") < section.index(">MANAGE<")


def test_a_malformed_mapping_names_the_file_and_the_entry(tmp_path: Path) -> None:
    path = tmp_path / "mapping.yaml"
    line = (
        "{function: MEASURE, id: MEASURE 2.3, title: t, evidence: slices, tiers: [low], "
        "supports: s}"
    )
    path.write_text(
        f"framework: f\nentries:\n  - {line}\n  - {{function: MEASURE, id: MEASURE 2.3}}\n"
    )
    with pytest.raises(MappingError, match=r"mapping\.yaml: entries\[1\]: missing field 'title'"):
        load_mapping(path)
    path.write_text(f"framework: f\nentries:\n  - {line.replace('id: MEASURE', 'id: MANAGE')}\n")
    with pytest.raises(MappingError, match=r"entries\[0\]: 'MANAGE 2.3' is not a subcategory"):
        load_mapping(path)
    path.write_text(f"framework: f\nentries:\n  - {line.replace('slices', 'vibes')}\n")
    with pytest.raises(MappingError, match="unknown evidence 'vibes'"):
        load_mapping(path)
