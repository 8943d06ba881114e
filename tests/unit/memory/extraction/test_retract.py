"""The retract family: "that conclusion no longer holds" retracts the latest knowledge record, or the
record holding the conclusion when the sentence quotes or names it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from slotstream.memory.extraction import RULES, Extraction, RuleExtractor, Turn
from slotstream.memory.models import Status
from slotstream.memory.validation import parse_command

from simulation import Sim

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


# --- naming the conclusion: the record holding it, not the latest one ------------------------------


@pytest.mark.parametrize(
    "text,value",
    [
        (
            "Our previous conclusion 'the cache causes the latency' was based on incorrect information.",
            "the cache causes the latency",
        ),
        (
            "This means our previous conclusion 'Approved $150,000 software purchase, $50,000 remaining' was based on "
            "incorrect information and needs to be RECALCULATED.",
            "Approved $150,000 software purchase, $50,000 remaining",
        ),
        ('The conclusion "users prefer dark mode" was based on a broken survey.', "users prefer dark mode"),
        ("Our conclusion that the API was the bottleneck turned out to be false.", "the API was the bottleneck"),
        ("The hypothesis that caching causes the bug has been ruled out.", "caching causes the bug"),
        ("I take back my earlier claim that the API is the bottleneck.", "the API is the bottleneck"),
        ('之前"缓存导致延迟"的结论是基于错误数据得出的。', "缓存导致延迟"),
        ("“用户更喜欢深色模式”这个结论是基于一份有问题的调查得出的。", "用户更喜欢深色模式"),
        ("之前说缓存导致延迟的那个结论是错的。", "缓存导致延迟"),
        ("之前的結論「快取導致延遲」作廢了。", "快取導致延遲"),  # traditional characters: the value as written
    ],
)
def test_a_named_conclusion_is_matched_by_its_value(text: str, value: str) -> None:
    out = extract(text)
    assert out.commands == [
        {
            "op": "retract",
            "tenant": "t1",
            "user": "u1",
            "match": {"attribute": "knowledge", "family": True, "value": value},
        }
    ]  # no `latest`: the record with that value, whenever it was observed


@pytest.mark.parametrize(
    "text",
    [
        "The conclusion that we reached last week was premature.",  # a relative clause names nothing
        "The estimate that was shared yesterday is wrong.",
        "之前的判断不成立了。",
    ],
)
def test_without_the_conclusions_content_only_the_latest_record_is_retracted(text: str) -> None:
    (cmd,) = extract(text).commands
    assert cmd["match"] == {"attribute": "knowledge", "family": True} and cmd["latest"] is True


def test_the_named_conclusion_leaves_and_the_corrected_basis_stays() -> None:
    """The StateBench shape: a basis, a conclusion drawn from it, the basis corrected, then "our previous
    conclusion '<X>' was based on incorrect information": X goes, the corrected basis (the latest) stays."""
    t0 = datetime(2025, 11, 27, 16, 0, tzinfo=UTC)
    conclusion = "Approved $150,000 software purchase, $50,000 remaining"
    s = Sim(tenant="t1", user="u1")
    _, derived = s.record(t0, attribute="knowledge.derived_decision", kind="knowledge", value=conclusion)
    _, basis = s.record(
        t0 + timedelta(minutes=30), attribute="knowledge.available_budget", kind="knowledge", value="$120,000 total"
    )
    (cmd,) = extract(f"Our previous conclusion '{conclusion}' was based on incorrect information.").commands
    s.command(t0 + timedelta(minutes=32), **{k: v for k, v in cmd.items() if k not in ("tenant", "user")})
    assert s.get(derived.id).status == Status.RETRACTED
    assert s.get(basis.id).status == Status.ACTIVE


@pytest.mark.parametrize(
    "text",
    [
        "我导师的结论错了。",
        "苹果决定取消耳机孔。",
        "The weather forecast was wrong again.",
        "The doctor's diagnosis was wrong, thankfully.",
        "I like detailed explanations, so don't hold back.",
    ],
)
def test_someone_elses_conclusion_and_a_verb_retract_nothing(text: str) -> None:
    assert retractions(extract(text)) == []


@pytest.mark.parametrize(
    "text",
    [
        "I take back what I concluded earlier about the memory leak.",
        "We've withdrawn the proposal we settled on last week.",
        "We can no longer stand behind the earlier estimate.",
        "The earlier result can't be reproduced, so treat it as invalid.",
        "The finding about slow queries was a false alarm.",
        "我觉得之前那个猜想已经站不住了。",
        "之前对那个bug的定性不对了。",
        "我收回之前的估算。",
        "请忽略我今天早上说的结论。",
        "我们发出去的时间线已经不现实了。",
    ],
)
def test_retractions_in_other_words(text: str) -> None:
    (cmd,) = retractions(extract(text))
    assert cmd["match"]["family"] is True and cmd["match"]["attribute"].startswith("knowledge")
