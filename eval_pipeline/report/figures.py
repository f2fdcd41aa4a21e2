"""Figures to bytes and to inline images: the one way every report picture leaves matplotlib.

Figures are built with ``matplotlib.figure.Figure`` (no pyplot: no display, no global state)
and rendered headless with the Agg canvas; the report inlines them as PNG data URIs so the page
needs nothing from the network.
"""

import base64
import io

from matplotlib.figure import Figure

VERDICT_COLOURS = {"pass": "#1a7f37", "fail": "#cf222e", "inconclusive": "#bf8700"}
"""Colours by verdict (green, red, amber), shared by every plot and the HTML."""

CANDIDATE_COLOUR = "#0969da"
BASELINE_COLOUR = "#8c959f"
DPI = 110


def figure_png(figure: Figure) -> bytes:
    """The figure as PNG bytes."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI)
    return buffer.getvalue()


def png_data_uri(png: bytes) -> str:
    """``data:image/png;base64,...`` for an ``<img src>`` or a Markdown image."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")
