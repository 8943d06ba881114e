"""The embedded model: static token embeddings (WordLlama's `l2_supercat`, 256 dimensions, MIT), read
from the files inside its wheel: the tokenizer and the weights. A text's vector is the mean of its
tokens' vectors, normalised; about 30 µs for a short sentence. Chinese is embedded through its
English gloss (`gloss.py`).

The model is loaded once per process (on first use), never downloaded: a missing package is an
error (`ModelUnavailable`), not a fetch. Stored vectors are int8 (a byte a dimension): `quantize`,
`dequantize`.
"""

from __future__ import annotations

import importlib.util
import re
from functools import cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ..errors import ModelUnavailable
from . import gloss
from .data import plain_words

Vector = NDArray[np.float32]
DIMENSIONS = 256
_WEIGHTS = ("weights", "l2_supercat_256.safetensors")
_TOKENIZER = ("tokenizers", "l2_supercat_tokenizer_config.json")
# words with no topic in them ("I", "the", "please"), left out of a text before it is embedded
_PLAIN = frozenset(plain_words("en"))
_IDS_KEPT = 200_000  # words and glosses whose token ids are kept (a few MB)
_WORD = re.compile(r"[a-z0-9]+(?:['’\-][a-z0-9]+)*|[^\sa-z0-9]", re.I)


def _package_folder(name: str) -> Path:
    spec = importlib.util.find_spec(name)  # the package's location, without importing it
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(f"the {name} package is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


class StaticModel:
    """Token embeddings and their tokenizer, from the wordllama wheel's own files."""

    def __init__(self) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        folder = _package_folder("wordllama")
        weights, tokenizer = folder.joinpath(*_WEIGHTS), folder.joinpath(*_TOKENIZER)
        if not weights.is_file() or not tokenizer.is_file():
            raise ModelUnavailable(f"the wordllama package at {folder} lacks its weights or tokenizer")
        (matrix,) = load_file(str(weights)).values()
        self.matrix: NDArray[np.float32] = np.ascontiguousarray(matrix, dtype=np.float32)
        self.tokenizer = Tokenizer.from_file(str(tokenizer))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        self._ids: dict[str, tuple[int, ...]] = {}

    def ids(self, piece: str) -> tuple[int, ...]:
        """A word's (or a gloss's) token ids, worked out once: the same words come back in every
        text, and tokenizing them one by one each time costs more than the rest of an embedding."""
        found = self._ids.get(piece)
        if found is None:
            found = tuple(self.tokenizer.encode(piece, add_special_tokens=False).ids)
            if len(self._ids) < _IDS_KEPT:
                self._ids[piece] = found
        return found

    def _mean(self, ids: list[int]) -> Vector:
        if not ids:
            return np.zeros(DIMENSIONS, dtype=np.float32)
        vector = self.matrix[ids].mean(axis=0)
        norm = float(np.linalg.norm(vector))
        return (vector / norm).astype(np.float32) if norm else vector.astype(np.float32)

    def embed_english(self, text: str) -> Vector:
        """The mean of its words' token vectors, words with no topic left out (all of them, when
        every word is one)."""
        words = _WORD.findall(text)
        kept = [w for w in words if w.lower() not in _PLAIN] or words
        return self._mean([i for w in kept for i in self.ids(w)])

    def embed(self, text: str) -> Vector:
        """A text's unit vector (Chinese through the gloss of each of its words)."""
        if not gloss.is_chinese(text):
            return self.embed_english(text)
        return self._mean([i for meaning in gloss.glosses(text) for i in self.ids(meaning)])


@cache
def model() -> StaticModel:
    return StaticModel()


def embed(text: str) -> Vector:
    return model().embed(text)


def quantize(vector: Vector) -> bytes:
    """A unit vector as int8 (each dimension x 127, rounded): a byte a dimension."""
    return np.clip(np.rint(vector * 127.0), -127, 127).astype(np.int8).tobytes()


def dequantize(data: bytes) -> Vector:
    return (np.frombuffer(data, dtype=np.int8).astype(np.float32) / 127.0).astype(np.float32)
