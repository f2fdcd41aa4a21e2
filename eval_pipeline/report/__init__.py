"""The release manager's view of a gate report: its plots and the standalone HTML report.

Plots (forest, score distributions, judge calibration), trace pages, trace links and the NIST AI
RMF section all read the gate's JSON report (the **contract** shape of docs/DESIGN.md section 9, as
stored in ``<home>/store/gates/<build>.json``) and what the home holds beside it (scores, traces,
the judge's calibration; ``report.inputs``), so what they show is what the gate decided.
"""
