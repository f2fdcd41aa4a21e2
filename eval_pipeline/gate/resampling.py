"""Resampling weights, drawn in blocks so that memory stays bounded whatever the suite's size.

A resample draws n clusters (items) with replacement; its weights say how often each cluster
was drawn. Drawing all R resamples at once holds R x n numbers: 200,000 items x 10,000
resamples is 15 GiB. So resamples are drawn in blocks sized to ``BLOCK_BYTES``, and each block
is reduced to per-resample sums before the next is drawn.

Each draw is a uniform double scaled to an index: a double consumes exactly one output of the
generator, so a stream drawn in blocks of any size is the stream drawn at once, and the same
seed gives the same resamples whatever the block size (``integers`` buffers 32-bit halves per
call and rejects some outputs, so its blocks would not concatenate). The scaled index is
``floor(u * n)``: its bias is below n / 2**53.
"""

import zlib
from collections.abc import Iterator

import numpy as np

BLOCK_BYTES = 64 * 2**20
"""Working memory of one block of resamples (the draws, their indices and the weights)."""
_BYTES_PER_DRAW = 24
_CACHE_DRAWS = 2**16
"""Draws generated per pass: the uniforms, indices and counts stay in the CPU's cache."""


def seeded_rng(seed: int, key: str) -> np.random.Generator:
    """A generator for one cell: stable across runs, processes and evaluation order."""
    return np.random.default_rng([seed, zlib.crc32(key.encode())])


def block_rows(n_clusters: int, n_resamples: int, bytes_per_resample: int = 0) -> int:
    """Resamples per block: as many as fit in ``BLOCK_BYTES`` (at least one)."""
    per_resample = _BYTES_PER_DRAW * max(n_clusters, 1) + bytes_per_resample
    return int(max(1, min(n_resamples, BLOCK_BYTES // per_resample)))


def blocks(n_resamples: int, rows: int) -> Iterator[slice]:
    """Consecutive row ranges of ``rows`` resamples covering ``n_resamples``."""
    for start in range(0, n_resamples, rows):
        yield slice(start, min(start + rows, n_resamples))


def draw_weights(rng: np.random.Generator, n: int, rows: int) -> np.ndarray:
    """How often each of ``n`` clusters is drawn in each of ``rows`` resamples: (rows, n).

    Generated a few rows at a time (rows are consumed from the stream in order, so this is
    the same stream) to keep each pass in the cache; ``floor(u * n) < n`` for every double
    ``u < 1``, so no index needs clipping.
    """
    weights = np.empty((rows, n))
    if n == 0 or rows == 0:
        return weights
    step = max(1, _CACHE_DRAWS // n)
    for start in range(0, rows, step):
        size = min(step, rows - start)
        uniform = rng.random((size, n))
        uniform *= n
        index = uniform.astype(np.int64)
        index += np.arange(size, dtype=np.int64)[:, None] * n
        counts = np.bincount(index.ravel(), minlength=size * n)
        weights[start : start + size] = counts.reshape(size, n)
    return weights


def weight_blocks(
    rng: np.random.Generator, n: int, n_resamples: int, bytes_per_resample: int = 0
) -> Iterator[tuple[slice, np.ndarray]]:
    """The resamples of one set of ``n`` clusters, block by block: (rows, weights)."""
    for rows in blocks(n_resamples, block_rows(n, n_resamples, bytes_per_resample)):
        yield rows, draw_weights(rng, n, rows.stop - rows.start)
