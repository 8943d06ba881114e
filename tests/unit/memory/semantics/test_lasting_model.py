"""The lasting model (memory/semantics/lasting_model.py): the shipped weights are the ones their
texts train, a turn is read by its words and word pairs, and each language's threshold vetoes no
more of the lasting training texts held out than it was set for."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from slotstream.memory.semantics import lasting_model

ROOT = Path(__file__).resolve().parents[4]


def _trainer():
    spec = importlib.util.spec_from_file_location("train_lasting", ROOT / "training" / "train_lasting.py")
    assert spec is not None and spec.loader is not None
    trainer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trainer)
    return trainer


def test_the_shipped_lasting_weights_are_the_ones_their_texts_train() -> None:
    # training/train_lasting.py --check: the texts and the settings it was trained on
    shipped = json.loads((ROOT / "memory" / "data" / "lasting_model.json").read_text(encoding="utf-8"))
    examples = _trainer().examples()
    assert shipped["trained_on"] == {"examples": len(examples), "digest": lasting_model.digest(examples)}
    langs = {(lasting_model.language(e.text), e.lasting) for e in examples}
    assert langs == {("en", True), ("en", False), ("zh", True), ("zh", False)}


@pytest.mark.long
def test_training_the_lasting_model_again_gives_the_shipped_weights() -> None:
    trained = lasting_model.train(_trainer().examples())
    shipped = lasting_model.model()
    assert trained.thresholds == shipped.thresholds
    assert abs(trained.bias - shipped.bias) < 1e-3
    assert trained.weights.keys() == shipped.weights.keys()
    assert max(abs(trained.weights[f] - shipped.weights[f]) for f in trained.weights) < 1e-3


def test_a_turn_is_read_by_its_words_its_pairs_its_first_clause_its_first_word_and_its_length() -> None:
    assert lasting_model.features("Under 100 words, please.") == sorted(
        {"^under", "#0", "under", "0", "words", "please", "under 0", "0 words", "words please", "1:under", "1:words"}
    )
    # a stance said before a question keeps its first clause's words apart
    assert {"1:受", "1:不", "1:了"} <= set(lasting_model.features("受不了排队，附近有啥店吗"))
    assert "1:店" not in lasting_model.features("受不了排队，附近有啥店吗")
    # Chinese by its characters; a question's mark and a pasted block's line break are words too
    got = lasting_model.features("我不吃辣？\n")
    assert {"^我", "我", "不", "吃", "辣", "？", "\n", "我 不", "不 吃", "吃 辣", "辣 ？"} <= set(got)
    assert lasting_model.features("I’m") == lasting_model.features("i'm")


def test_each_language_has_its_own_threshold() -> None:
    shipped = lasting_model.model()
    assert set(shipped.thresholds) == {"en", "zh"}
    assert all(0.0 < t < 0.5 for t in shipped.thresholds.values())
    assert lasting_model.language("我对花生过敏") == "zh" and lasting_model.language("I'm allergic") == "en"


def test_the_thresholds_veto_few_of_the_lasting_training_texts() -> None:
    # set on held-out scores to veto about KEPT_LOSS of them; the model trained on all of them
    # vetoes fewer still, and most of the chat texts
    examples = _trainer().examples()
    for lang in ("en", "zh"):
        lasting = [e.text for e in examples if e.lasting and lasting_model.language(e.text) == lang]
        chat = [e.text for e in examples if not e.lasting and lasting_model.language(e.text) == lang]
        vetoed = sum(lasting_model.reads_as_chat(t) for t in lasting) / len(lasting)
        caught = sum(lasting_model.reads_as_chat(t) for t in chat) / len(chat)
        assert vetoed <= lasting_model.KEPT_LOSS, lang
        assert caught >= 0.5, lang
