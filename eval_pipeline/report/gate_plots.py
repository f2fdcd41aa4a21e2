"""The gate asset's pictures, written beside the gate report: forest, distributions, calibration.

The same PNGs the standalone report inlines (drawn from the same ``ReportInputs``), stored as
``<home>/store/gates/<build>.<plot>.png`` so the Dagster asset can point at them and a CI job
can keep them as artefacts. The calibration plot exists only when the suite has a judge whose
calibration is stored.
"""

from pathlib import Path

from eval_pipeline.home import Home
from eval_pipeline.report.calibration_plot import calibration_png
from eval_pipeline.report.distributions import distribution_png
from eval_pipeline.report.forest import forest_png
from eval_pipeline.report.inputs import ReportInputs
from eval_pipeline.report.stored import plot_path


def gate_plot_pngs(inputs: ReportInputs) -> dict[str, bytes]:
    """Plot name -> PNG bytes (``forest``, ``distributions``, ``calibration`` if calibrated)."""
    report = inputs.report
    against = report.get("baseline") or "no baseline"
    pngs = {
        "forest": forest_png(report, title=f"{inputs.build} vs {against}: {report['verdict']}"),
        "distributions": distribution_png(
            report,
            inputs.candidate,
            inputs.baseline,
            title=f"score distributions: {inputs.build} (filled) vs {against} (outline)",
        ),
    }
    if inputs.calibration is not None:
        pngs["calibration"] = calibration_png(inputs.calibration)
    return pngs


def write_gate_plots(home: Home, inputs: ReportInputs) -> dict[str, Path]:
    """Write every plot of the build beside its gate report; plot name -> path."""
    written = {}
    for name, png in gate_plot_pngs(inputs).items():
        target = plot_path(home, inputs.build, name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(png)
        written[name] = target
    return written
