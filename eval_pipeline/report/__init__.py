"""The release manager's view of a gate report: the forest plot and the standalone HTML report.

Both read the gate's JSON report (the **contract** shape of DESIGN.md section 9, as stored in
``<home>/store/gates/<build>.json``), so what they show is what the gate decided.
"""
