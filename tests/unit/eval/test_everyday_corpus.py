"""The everyday corpus (docs/evaluation.md), measured with the same functions as `slotstream eval
everyday`: recall per family and language, false positives on ordinary chat. The assertions are on
the whole corpus (both splits), where every cell meets the target; the fresh corpus is the check on
sentences nobody tuned against."""

from __future__ import annotations

import contextlib
import io
from functools import cache

import pytest

from slotstream.cli import main as cli_main
from slotstream.eval.families import (
    EVERYDAY,
    FP_TARGET,
    LANGS,
    PHRASINGS,
    RECALL_TARGET,
    CorpusLine,
    Result,
    evaluate,
    everyday_fp_on,
    extract,
    kept,
    load_corpus,
    main_everyday,
)


@cache
def corpus() -> tuple[list[CorpusLine], list[CorpusLine]]:
    return load_corpus(None, EVERYDAY)


@cache
def result(split: str) -> Result:
    families, chat = corpus()
    return evaluate(families, chat, split, EVERYDAY)


def test_the_corpus_has_every_family_in_both_languages() -> None:
    families, chat = corpus()
    assert {(line.family, line.lang) for line in families} == {(f, lang) for f in EVERYDAY.families for lang in LANGS}
    assert {line.lang for line in chat} == set(LANGS)
    assert len(families) > 1000 and len(chat) > 600


@pytest.mark.parametrize("family,lang", [(f, lang) for f in EVERYDAY.families for lang in LANGS])
def test_recall_per_family_and_language(family: str, lang: str) -> None:
    cell = result("all").recall[(family, lang)]
    assert cell.n > 0
    assert cell.rate >= RECALL_TARGET, f"{family}/{lang}: {cell.hits}/{cell.n}"


@pytest.mark.parametrize("key", ["all", *LANGS])
def test_ordinary_chat_false_positives_stay_under_the_target(key: str) -> None:
    cell = result("all").fp[key]
    assert cell.n > 0
    assert cell.rate <= FP_TARGET, f"{key}: {cell.hits}/{cell.n}"


def test_the_everyday_families_never_fire_on_ordinary_chat() -> None:
    """Every false positive on the everyday chat is an older family (a detail or language request)."""
    res = result("all")
    assert all(res.fired[f].hits == 0 for f in EVERYDAY.families)


def test_the_everyday_families_stay_quiet_on_the_phrasing_corpus_chat() -> None:
    _, chat = load_corpus(None, PHRASINGS)
    total, per_lang = everyday_fp_on(chat)
    assert total.n > 600
    assert total.rate <= FP_TARGET and all(c.rate <= FP_TARGET for c in per_lang.values())


def test_a_negative_likes_line_counts_a_dislike() -> None:
    ex = extract("I hate cilantro.")
    assert kept("likes", None, ex, EVERYDAY, "negative")
    assert not kept("likes", None, ex, EVERYDAY, "positive")
    assert kept("travel", None, extract("I always prefer a window seat."), EVERYDAY)
    assert kept("work", None, extract("I'm a nurse."), EVERYDAY)  # profile.work.occupation
    assert not kept("diet", None, extract("I had pizza yesterday."), EVERYDAY)


def test_the_report_never_prints_a_holdout_text() -> None:
    families, chat = corpus()
    holdout_texts = [line.text for line in families + chat if line.split == "holdout"]
    for split in ("holdout", "all"):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main_everyday(split=split, verbose=True) == 0
        printed = out.getvalue()
        assert sum(1 for text in holdout_texts if text in printed) == 0


def test_the_cli_prints_the_table_the_verdict_and_the_phrasing_chat_line() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli_main(["eval", "everyday", "--split", "dev"]) == 0
    printed = out.getvalue()
    assert "everyday corpus, split=dev" in printed
    assert "languages" in printed and "ordinary chat, false positives" in printed
    assert "targets (recall >= 90% per family per language" in printed
    assert printed.rstrip().splitlines()[-1].startswith("everyday families on the phrasing corpus's ordinary chat")
