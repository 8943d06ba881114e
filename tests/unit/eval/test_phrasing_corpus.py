"""The blind-written phrasing corpus (docs/evaluation.md), measured with the same functions as
`slotstream eval phrasings`: recall per family and language, false positives on ordinary chat.

The holdout discipline is checked too: the report never prints the text of a holdout line."""

from __future__ import annotations

import contextlib
import io
from functools import cache

import pytest

from slotstream.cli import main as cli_main
from slotstream.eval.families import (
    FAMILIES,
    FP_TARGET,
    LANGS,
    RECALL_TARGET,
    Cell,
    CorpusLine,
    Result,
    evaluate,
    extract,
    kept,
    load_corpus,
    main,
    report_lines,
    split_of,
)


@cache
def corpus() -> tuple[list[CorpusLine], list[CorpusLine]]:
    return load_corpus()


@cache
def result(split: str) -> Result:
    families, chat = corpus()
    return evaluate(families, chat, split)


def test_the_corpus_has_every_family_in_both_languages() -> None:
    families, chat = corpus()
    cells = {(line.family, line.lang) for line in families}
    assert cells == {(f, lang) for f in FAMILIES for lang in LANGS}
    assert {line.lang for line in chat} == set(LANGS)
    assert len(families) > 700 and len(chat) > 600


def test_the_split_is_every_third_line_per_file() -> None:
    assert [split_of(i) for i in range(6)] == ["dev", "dev", "holdout", "dev", "dev", "holdout"]
    families, chat = corpus()
    for lines in (families, chat):
        holdout = [line for line in lines if line.split == "holdout"]
        assert len(holdout) == len(lines) // 3


@pytest.mark.parametrize("family,lang", [(f, lang) for f in FAMILIES for lang in LANGS])
def test_recall_per_family_and_language_meets_the_target(family: str, lang: str) -> None:
    """Over the whole corpus, both splits: the fresh corpus is the check on sentences nobody tuned against."""
    cell = result("all").recall[(family, lang)]
    assert cell.n > 0
    assert cell.rate >= RECALL_TARGET, f"{family}/{lang}: {cell.hits}/{cell.n}"


@pytest.mark.parametrize("key", ["all", *LANGS])
def test_ordinary_chat_false_positives_stay_under_the_target(key: str) -> None:
    cell = result("all").fp[key]
    assert cell.n > 0
    assert cell.rate <= FP_TARGET, f"{key}: {cell.hits}/{cell.n}"


def test_every_dev_line_is_kept_and_no_dev_chat_line_fires() -> None:
    res = result("dev")
    assert [(line.family, line.index) for line, _ in res.misses] == []
    assert [line.index for line, _ in res.false_positives] == []


def test_kept_checks_the_family_attribute_and_the_value_where_the_corpus_gives_one() -> None:
    assert kept("language", "French", extract("Answer in French from now on."))
    assert not kept("language", "German", extract("Answer in French from now on."))
    assert kept("expertise", "beginner", extract("I'm new to Rust."))  # profile.expertise.rust
    assert kept("decision", None, extract("We chose PostgreSQL for the database."))  # knowledge.decision.database
    assert kept("forget", None, extract("Forget my timezone."))
    assert kept("retract", None, extract("That conclusion is invalid."))
    assert not kept("detail", "concise", extract("How are you today?"))


def test_the_report_never_prints_a_holdout_text() -> None:
    families, chat = corpus()
    holdout_texts = [line.text for line in families + chat if line.split == "holdout"]
    for split in ("holdout", "all"):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(split=split, verbose=True) == 0
        printed = out.getvalue()
        leaked = sum(1 for text in holdout_texts if text in printed)
        assert leaked == 0, f"{leaked} holdout texts printed with --split {split} -v"  # never the texts themselves


def test_the_cli_prints_the_table_and_the_verdict() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli_main(["eval", "phrasings", "--split", "dev"]) == 0
    printed = out.getvalue()
    assert "split=dev" in printed
    assert "retract" in printed and "ordinary chat, false positives" in printed
    assert printed.rstrip().splitlines()[-1].startswith("targets (recall >= 90% per family per language")


def test_holdout_texts_are_printed_only_when_asked() -> None:
    secret = CorpusLine(2, "en", "a held-out sentence nobody should read by default", family="detail", value="concise")
    res = Result("all", misses=[(secret, extract(secret.text))])
    for fam in FAMILIES:
        for lang in LANGS:
            res.recall[(fam, lang)] = Cell()
    res.recall[("detail", "en")] = Cell(1, 0)
    for key in ("all", *LANGS):
        res.fp[key] = Cell()
    for fam in FAMILIES:
        res.fired[fam] = Cell()
    assert secret.split == "holdout"
    assert not any(secret.text in line for line in report_lines(res, verbose=True))
    assert any(secret.text in line for line in report_lines(res, show_holdout=True))
