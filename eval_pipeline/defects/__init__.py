"""Seeded defects: trace mutations, and validation that the gate catches each one.

``mutations`` seeds a defect into any recorded build; ``validate`` checks that each seeded
build fails the gate on the metric it targets; ``story`` wires the sample agent into it for
``eval-pipeline defects`` and ``eval-pipeline demo``.
"""
