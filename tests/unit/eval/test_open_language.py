"""The open-language corpus (docs/evaluation.md), measured with the same functions as `slotstream
eval open-language`: statements in users' own words reach the request they matter for and stay out
of an unrelated one; ordinary chat leaves no lasting memory. The targets the command prints (90% /
10% / 2%) are not all met yet (docs/results.md); these floors are what the dev corpus gives now, so
a change that loses ground fails here."""

from __future__ import annotations

import contextlib
import io
from functools import cache

from slotstream.cli import main as cli_main
from slotstream.eval.corpus import corpus_path
from slotstream.eval.open_language import FALSE_MEMORY_TARGET, Result, evaluate, load

DEV = corpus_path("open_language_dev")


@cache
def result() -> Result:
    return evaluate(DEV)


def test_the_corpus_is_what_the_measurement_claims() -> None:
    statements, distractors = load(DEV)
    assert sum(1 for s in statements if s.lang == "en") >= 400 and sum(1 for s in statements if s.lang == "zh") >= 200
    assert len({s.domain for s in statements}) >= 20 and len(distractors) >= 300


def test_false_memories_stay_under_the_target() -> None:
    for lang in ("en", "zh"):
        assert result().total(result().false_memory, lang).rate <= FALSE_MEMORY_TARGET, lang


def test_reach_and_over_inclusion_hold_their_ground() -> None:
    floors = {"en": (0.80, 0.10), "zh": (0.89, 0.09)}  # reached at least, over-inclusion at most
    for lang, (reached, over) in floors.items():
        assert result().total(result().reached, lang).rate >= reached, lang
        assert result().total(result().over, lang).rate <= over, lang


def test_the_command_prints_every_domain_and_the_verdict() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli_main(["eval", "open-language"])
    text = out.getvalue()
    assert code == 0
    assert "hotels" in text and "learning_style" in text and "false memories, zh" in text
    assert "en: reached" in text and "zh: reached" in text


def test_a_corpus_of_conversations_only_is_reported_on_its_conversations() -> None:
    corpus = corpus_path("open_language_fresh13")
    assert load(corpus) == ([], [])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli_main(["eval", "open-language", "--corpus", str(corpus)])
    text = out.getvalue()
    assert code == 0 and "per domain" not in text
    assert "en: " in text and "correction " in text and "time_bound " in text


def test_a_corpus_of_one_language_is_reported_on_that_language(tmp_path) -> None:
    for name in ("statements_zh.jsonl", "distractors_zh.jsonl"):
        lines = DEV.joinpath(name).read_text(encoding="utf-8").splitlines()[:12]
        tmp_path.joinpath(name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    statements, distractors = load(tmp_path)
    assert {s.lang for s in statements} == {"zh"} and len(statements) == 12 and len(distractors) == 12
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli_main(["eval", "open-language", "--corpus", str(tmp_path)])
    text = out.getvalue()
    assert code == 0 and "zh: reached" in text and "false memories, zh" in text
    assert "en: reached" not in text and "false memories, en" not in text
