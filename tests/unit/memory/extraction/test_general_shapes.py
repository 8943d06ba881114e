"""The general shapes of the open-ended families (written for these tests, not taken from the phrasing
corpus): a decision, a current focus, a goal, a level of expertise said in many ways; traditional Chinese
read like simplified; thanks, questions, other people and the past give nothing."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from slotstream.memory.extraction import Extraction, RuleExtractor, Turn
from slotstream.memory.validation import build_record, parse_command, parse_record

AT = datetime(2026, 9, 23, 10, 0, tzinfo=UTC)
EXTRACTOR = RuleExtractor()


def extract(text: str) -> Extraction:
    t = Turn(tenant="t1", user="u1", session="s1", project="p1", text=text, at=AT, turn_id="turn-1")
    out = EXTRACTOR.extract(t)
    for p in out.items:  # everything proposed is something the engine accepts
        if p.record is not None:
            build_record(parse_record(p.record), op_id="x", at=AT)
        if p.command is not None:
            parse_command(p.command)
    return out


def attributes(out: Extraction) -> list[str]:
    return [str(r["attribute"]) for r in out.records]


def value_of(out: Extraction, prefix: str) -> str | None:
    for r in out.records:
        if str(r["attribute"]).startswith(prefix):
            return str(r["value"])
    return None


@pytest.mark.parametrize(
    "text",
    [
        "I chose Notion as our project wiki.",
        "Let's go with option C for the onboarding flow.",
        "Final call: we're shipping without the dark mode feature.",
        "Our database will be MongoDB, that's been decided.",
        "We've decided not to support Internet Explorer.",
        "The verdict from the architecture review: event sourcing for orders.",
        "My cofounder and I decided to bootstrap instead of raising money.",
        "讨论完了，我们用GraphQL，不用REST。",
        "首发只做iOS，这个已经定下来了。",
        "我们CI换成GitHub Actions了。",
        "以后计费统一走Stripe。",
        "评审后团队同意按季度发版。",
        "我們決定用月度迭代。",
    ],
)
def test_decisions_in_many_shapes(text: str) -> None:
    assert any(a.startswith("knowledge.decision") for a in attributes(extract(text))), text


@pytest.mark.parametrize(
    "text",
    [
        "I moved to Shanghai.",  # a home, not a decision
        "改成英文。",  # a language preference
        "市里决定封桥维修。",  # someone else's decision
        "We decided to order pizza.",
        "你能帮我在两台笔记本之间做个选择吗？",
        "我上一份工作用的是Jenkins。",
        "把刚才的答案改成小学生能看懂的版本",  # the answer at hand, not the work's tools
        "以“细节决定成败”为题，帮我写个议论文的开头段落",  # a saying
    ],
)
def test_not_a_project_decision(text: str) -> None:
    assert not any(a.startswith("knowledge.decision") for a in attributes(extract(text))), text


@pytest.mark.parametrize(
    "text",
    [
        "We're putting all our energy into onboarding this month.",
        "Top of my list right now: the tax filing.",
        "At the moment I'm giving the billing refactor most of my time.",
        "Right now I'm all about getting the beta out the door.",
        "This week I really need to nail the pitch deck, everything else is secondary.",
        "这季度的优先级是降低流失率。",
        "现在对我来说安全加固排第一位。",
        "截止日期之前，季度报告是我唯一的重点。",
        "今天客户方案优先，其他的先不管。",
        "這週的重點是優化資料庫。",
    ],
)
def test_a_current_focus_in_many_shapes(text: str) -> None:
    assert "priority.focus" in attributes(extract(text)), text


@pytest.mark.parametrize(
    "text",
    [
        "I focused on the wrong thing yesterday.",
        "It snowed for the first time this year today.",
        "帮我写封邮件，婉拒一下周三的会议。",
        "今天在公园看到一只好可爱的狗。",
        "这周太忙了。",
        "专注模式很适合干活。",
    ],
)
def test_not_a_focus(text: str) -> None:
    assert "priority.focus" not in attributes(extract(text)), text


@pytest.mark.parametrize(
    "text",
    [
        "I aim to switch careers into UX design within two years.",
        "I want to build a SaaS that makes $10k a month.",
        "I'm saving up to buy an apartment.",
        "I'm working on becoming a better public speaker.",
        "我想考注册会计师。",
        "三年内我要还清助学贷款。",
        "我在攒钱买房。",
        "拿到黑带是我的一个大目标。",
        "我的夢想是有一天擁有一座農場。",
    ],
)
def test_goals_in_many_shapes(text: str) -> None:
    assert "goal.main" in attributes(extract(text)), text


@pytest.mark.parametrize(
    "text",
    [
        "I want to see the logs.",
        "I'd like a cup of tea.",
        "我想考虑一下。",
        "我想去试试新开的拉面店。",
        "我爸想早点退休。",
    ],
)
def test_not_a_goal(text: str) -> None:
    assert "goal.main" not in attributes(extract(text)), text


@pytest.mark.parametrize(
    "text,level",
    [
        # a level said outright elsewhere wins over one read from a duration or a description
        ("I've been doing Kubernetes professionally for ten years and I help maintain a few operators.", "expert"),
        ("I'm a hobbyist guitarist, been playing a few years, somewhere in the middle.", "intermediate"),
        ("我做数据分析三四年了，pandas 用得还行。", "intermediate"),
        ("我在安全领域干了二十年，算这方面的专家。", "expert"),
        ("React 我不算新手了，但离精通还差得远。", "intermediate"),
        ("我会一点吉他，不算新手也不算高手。", "intermediate"),
        # descriptions of experience
        ("I do data analysis for a living.", "advanced"),
        ("I'm somewhere between beginner and advanced in Go.", "intermediate"),
        ("Total rookie at chess here.", "beginner"),
        ("My coding experience is basically zero.", "beginner"),
        ("我德语说得很流利。", "advanced"),
        ("我没有化学背景。", "beginner"),
        ("我是個有十年經驗的護士。", "advanced"),
    ],
)
def test_expertise_levels(text: str, level: str) -> None:
    assert value_of(extract(text), "profile.expertise") == level, text


@pytest.mark.parametrize(
    "text",
    [
        "Give me a beginner's guide to Docker.",
        "I used to be a beginner at chess.",
        "I'm learning a lot from you.",
        "My son is a beginner at piano.",
        "给我一个Docker新手指南。",
        "Getting fluent in Korean is one of my big goals.",  # a goal, not a level
    ],
)
def test_not_a_level_of_the_user(text: str) -> None:
    assert not any(a.startswith("profile.expertise") for a in attributes(extract(text))), text


def test_traditional_characters_read_as_simplified_and_values_stay_as_written() -> None:
    assert value_of(extract("我住在臺北。"), "profile.home_city") == "臺北"
    assert value_of(extract("以後都用中文回答我。"), "preference.language") == "Chinese"
    assert value_of(extract("回答簡短一點。"), "preference.response.detail") == "concise"


@pytest.mark.parametrize(
    "text", ["Thanks for the detailed answer!", "谢谢你详细的回答！", "Can you do a quick sanity check?"]
)
def test_thanks_for_an_answer_is_not_a_preference(text: str) -> None:
    assert extract(text).items == []


@pytest.mark.parametrize(
    "text",
    [
        "[PM (Project Manager)]: That's new scope. We can do basic auth by Friday OR OAuth by next Wednesday.",
        "David (Product Director): Prioritize the mobile app launch",
        "[Sarah (VP Operations)]: Fine, let's go with VendorB then at $150K.",
    ],
)
def test_another_speakers_pasted_words_are_not_the_users_statement(text: str) -> None:
    assert extract(text).items == []


def test_a_plain_heading_is_still_the_users_own() -> None:
    assert attributes(extract("Update: I moved to Berlin.")) == ["profile.home_city"]
