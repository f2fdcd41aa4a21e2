"""``python -m benchmarks``: the benchmark harness (``benchmarks.cli``)."""

from benchmarks.cli import bench

if __name__ == "__main__":
    bench()
