"""The retract family: "that conclusion no longer holds" retracts the latest knowledge record."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from slotstream.memory.extraction import RULES, Extraction, RuleExtractor, Turn
from slotstream.memory.validation import parse_command

AT = datetime(2026, 9, 23, 10, 0, tzinfo=UTC)
EXTRACTOR = RuleExtractor()


def extract(text: str, *, project: str | None = "p1") -> Extraction:
    turn = Turn(tenant="t1", user="u1", session="s1", project=project, text=text, at=AT, turn_id="turn-1")
    out = EXTRACTOR.extract(turn)
    for cmd in out.commands:
        parse_command(cmd)  # every command the extractor proposes is one the engine accepts
    return out


def retractions(out: Extraction) -> list[dict]:
    return [c for c in out.commands if c["op"] == "retract"]


@pytest.mark.parametrize(
    "text,attribute",
    [
        # EN, no topic: every knowledge.* attribute, only the latest live record
        ("That conclusion is invalid.", "knowledge"),
        ("That conclusion no longer holds.", "knowledge"),
        ("Scrap that estimate, it needs recalculating.", "knowledge"),
        ("The earlier diagnosis was wrong, so disregard it.", "knowledge"),
        ("Our earlier assessment doesn't apply anymore.", "knowledge"),
        # EN, a decision topic named the way the decision family slugs it
        ("The database decision no longer holds.", "knowledge.decision.database"),
        ("The decision about the database is off the table now.", "knowledge.decision.database"),
        ("The decision to go with vendor X has been reversed.", "knowledge.decision.vendor"),
        # ZH, no topic
        ("那个结论作废了。", "knowledge"),
        ("之前的判断不成立了。", "knowledge"),
        ("上次那个估算不算数了，得重新算。", "knowledge"),
        # ZH, a decision topic
        ("数据库的决定作废了。", "knowledge.decision.数据库"),
        ("关于数据库的决定不算数了。", "knowledge.decision.数据库"),
    ],
)
def test_a_retraction_is_a_retract_command_on_the_latest_record(text: str, attribute: str) -> None:
    out = extract(text)
    assert out.records == []
    assert len(out.items) == 1 and out.items[0].rule == "retract"
    assert out.commands == [
        {
            "op": "retract",
            "tenant": "t1",
            "user": "u1",
            "match": {"attribute": attribute, "family": True},
            "latest": True,
        }
    ]
    assert out.items[0].link_current is False


@pytest.mark.parametrize(
    "decision,retraction",
    [
        ("For the database, we chose PostgreSQL.", "The database decision no longer holds."),
        ("We went with vendor X.", "The decision to go with vendor X has been reversed."),
        ("数据库最后选了Postgres。", "数据库的决定作废了。"),
    ],
)
def test_the_topic_is_the_attribute_the_decision_family_stored(decision: str, retraction: str) -> None:
    stored = extract(decision).records[0]["attribute"]
    assert retractions(extract(retraction))[0]["match"]["attribute"] == stored


@pytest.mark.parametrize(
    "text",
    [
        "Actually it's B.",
        "Actually, the conclusion is B.",
        "That was wrong.",
        "这个结论是错的，应该是B。",
    ],
)
def test_a_correction_with_a_new_value_is_not_a_retraction(text: str) -> None:
    assert retractions(extract(text)) == []


def test_a_retracted_decision_with_a_replacement_is_a_correction() -> None:
    out = extract("The API design decision was wrong, we're going with design C instead.")
    assert retractions(out) == []
    assert [(r["attribute"], r["value"]) for r in out.records] == [("knowledge.decision.design", "design C")]
    assert out.items[0].link_current is True


@pytest.mark.parametrize(
    "text", ["Forget my timezone.", "忘掉我住在北京。", "Please delete what you know about my timezone."]
)
def test_forget_is_not_a_retraction(text: str) -> None:
    out = extract(text)
    assert [c["op"] for c in out.commands] == ["forget"]


@pytest.mark.parametrize(
    "text",
    [
        "Is that conclusion still valid?",
        "His analysis was wrong.",
        "My friend's estimate was wrong.",
        "The estimate is 3 weeks.",
        "The results look great.",
        "那个数据有问题。",
        "为什么错误的决定很难推翻？",
    ],
)
def test_questions_other_people_and_plain_statements_retract_nothing(text: str) -> None:
    assert retractions(extract(text)) == []


def test_assistant_turns_never_retract() -> None:
    turn = Turn(tenant="t1", user="u1", role="assistant", text="That conclusion no longer holds.", at=AT)
    assert EXTRACTOR.extract(turn).items == []


def test_retract_is_a_rule() -> None:
    assert "retract" in RULES
