"""eval-pipeline: evaluation and observability for agentic LLM systems.

Importing the package switches every third-party library's telemetry off first, so that no
entry point can call out (see ``offline``).
"""

from eval_pipeline.offline import disable_telemetry

disable_telemetry()

__version__ = "0.1.0"
