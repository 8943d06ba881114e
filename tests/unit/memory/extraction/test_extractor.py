"""The rule-based extractor: English and Chinese phrasings, scopes, time boxes, corrections, secrets."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from slotstream.memory.extraction import (
    REFUSED_CHAT,
    REFUSED_NO_PROJECT,
    REFUSED_NO_SESSION,
    REFUSED_SECRET,
    Extraction,
    Extractor,
    Proposal,
    RuleExtractor,
    Turn,
    day_end,
    month_end,
    split_sentences,
    week_end,
)
from slotstream.memory.extraction import extractor as extractor_module
from slotstream.memory.registry import TEMPORARY_LIFETIME
from slotstream.memory.secrets import contains_secret
from slotstream.memory.validation import build_record, parse_command, parse_record

# Wednesday 2026-09-23 10:00 UTC
AT = datetime(2026, 9, 23, 10, 0, tzinfo=UTC)
WEEK_END = "2026-09-28T00:00:00Z"
DAY_END = "2026-09-24T00:00:00Z"
TEMP_END = "2026-09-23T14:00:00Z"  # AT + 4 hours

EXTRACTOR = RuleExtractor()


def turn(
    text: str,
    *,
    session: str | None = "s1",
    project: str | None = None,
    role: str = "user",
    at: datetime = AT,
    turn_id: str | None = "turn-1",
) -> Turn:
    return Turn(tenant="t1", user="u1", session=session, project=project, role=role, text=text, at=at, turn_id=turn_id)


def extract(text: str, **kw) -> Extraction:
    t = turn(text, **kw)
    out = EXTRACTOR.extract(t)
    _check_valid(t, out)
    return out


def _check_valid(t: Turn, out: Extraction) -> None:
    """Every record passes the engine's validation; every command parses; nothing secret is kept."""
    for p in out.items:
        if p.record is not None:
            rec = build_record(parse_record(p.record), op_id="x", at=t.at)
            assert rec.tenant == "t1" and rec.user == "u1"
            assert p.record["authority"] == "user_explicit"
            assert p.record["observed_at"] == "2026-09-23T10:00:00Z" or t.at != AT
            assert "id" not in p.record
            ev = p.record["evidence"]
            assert len(ev) == 1 and ev[0]["source_type"] == "conversation" and ev[0]["source_id"] == t.source_id()
            assert not contains_secret(ev[0]["quote"]) and not contains_secret(p.record["statement"])
        else:
            parse_command(p.command)
    assert not contains_secret(out.redacted_text)


def summary(out: Extraction) -> list[tuple]:
    rows = []
    for p in out.items:
        if p.record is not None:
            rows.append((p.record["attribute"], p.record["value"], p.record["scope"]))
        elif p.command["op"] == "restate":
            # beside a family's record, a restatement naming its thing is resolved against the
            # store (tests/unit/memory/test_resolution.py): a no-op where the family wrote it all
            continue
        elif "replaced_by" in p.command:
            # news of a change: kept only where it replaces a record (tests/unit/memory/test_resolution.py)
            rows.append(("replace", p.command["replaced_by"]))
        elif "about" in p.command:
            rows.append((p.command["op"], tuple(p.command["about"])))
        else:
            m = p.command["match"]
            rows.append(("forget", m["attribute"], m.get("value")))
    return rows


G = "global"
S = "session:s1"
P = "project:p1"

# (text, expected [(attribute, value, scope)]) -- each turn has session s1 and no project unless noted
CASES: list[tuple[str, list[tuple]]] = [
    # --- answer detail (EN) ---
    ("I prefer short answers.", [("preference.response.detail", "concise", G)]),
    ("I prefer concise answers.", [("preference.response.detail", "concise", G)]),
    ("From now on, answer in detail.", [("preference.response.detail", "detailed", G)]),
    ("Please explain the reasoning.", [("preference.response.detail", "detailed", G)]),
    ("Going forward, keep your answers brief.", [("preference.response.detail", "concise", G)]),
    ("I like detailed explanations.", [("preference.response.detail", "detailed", G)]),
    ("Don't be so verbose.", [("preference.response.detail", "concise", G)]),
    ("No need for long explanations.", [("preference.response.detail", "concise", G)]),
    ("Show your work step by step from now on.", [("preference.response.detail", "detailed", G)]),
    # --- answer detail (ZH) --- (a bare instruction is about the answer at hand: the session)
    ("简短一点。", [("preference.response.detail", "concise", S)]),
    ("以后回答简洁些。", [("preference.response.detail", "concise", G)]),
    ("详细一些。", [("preference.response.detail", "detailed", S)]),
    ("写清楚推导过程。", [("preference.response.detail", "detailed", S)]),
    ("不用太详细。", [("preference.response.detail", "concise", S)]),
    ("别太简短。", [("preference.response.detail", "detailed", S)]),
    # --- quantitative length ---
    ("Keep answers under 100 words.", [("preference.response.length", "at most 100 words", G)]),
    ("这次先用三句话回答。", [("preference.response.length", "3 sentences", S)]),
    ("回答控制在200字以内。", [("preference.response.length", "at most 200 characters", G)]),
    # --- language ---
    ("Answer in English.", [("preference.language", "English", S)]),
    ("Going forward, please reply in Chinese.", [("preference.language", "Chinese", G)]),
    ("Chinese, please.", [("preference.language", "Chinese", G)]),
    ("用中文回答。", [("preference.language", "Chinese", G)]),
    ("请用英文。", [("preference.language", "English", S)]),
    ("以后都用英语回复。", [("preference.language", "English", G)]),
    ("以后跟我说汉语。", [("preference.language", "Chinese", G)]),
    ("中文回答就好。", [("preference.language", "Chinese", G)]),
    ("你能用英文回答吗？", [("preference.language", "English", G)]),
    # --- explanation style / order ---
    ("Give me examples first.", [("preference.explanation_style", "example first", S)]),
    ("Always give me examples first.", [("preference.explanation_style", "example first", G)]),
    ("我习惯先看例子再讲原理。", [("preference.explanation_style", "example first", G)]),
    ("Keep your answers in English.", [("preference.language", "English", G)]),
    ("give the answer first, then the reasoning", [("preference.response.order", "conclusion first", S)]),
    ("控制在一百字以内", [("preference.response.length", "at most 100 characters", S)]),
    ("Start with a concrete example.", [("preference.explanation_style", "example first", G)]),
    ("先给例子再讲原理。", [("preference.explanation_style", "example first", S)]),
    (
        "讲 Python 时最好先给一个可运行的小例子，再解释为什么这样写。",
        [("preference.explanation_style", "example first", G)],
    ),
    ("Theory first, please.", [("preference.explanation_style", "theory first", G)]),
    ("I prefer the conclusion first.", [("preference.response.order", "conclusion first", G)]),
    ("我习惯先看结论。", [("preference.response.order", "conclusion first", G)]),
    # --- home city ---
    ("I live in New York City.", [("profile.home_city", "New York City", G)]),
    ("I moved to Shanghai.", [("profile.home_city", "Shanghai", G)]),
    ("I've just moved from Beijing to Hangzhou.", [("profile.home_city", "Hangzhou", G)]),
    ("I'm based in Berlin.", [("profile.home_city", "Berlin", G)]),
    ("My home city is Shenzhen.", [("profile.home_city", "Shenzhen", G)]),
    ("我住在北京。", [("profile.home_city", "北京", G)]),
    ("我搬到杭州了。", [("profile.home_city", "杭州", G)]),
    ("我刚搬到了深圳市。", [("profile.home_city", "深圳", G)]),
    ("我在成都生活。", [("profile.home_city", "成都", G)]),
    # a space between Chinese words parts clauses as a comma does
    ("搬家啦 现在住苏州园区了", [("profile.home_city", "苏州园区", G)]),
    ("上个月搬家了 现在住苏州园区", [("profile.home_city", "苏州园区", G)]),
    # a move told without its place, and where the user is now beside it or in the next sentence
    ("big news, we moved! we're in Bristol now, got the keys yesterday", [("profile.home_city", "Bristol", G)]),
    ("update: we finally did the move, I'm in Sheffield now", [("profile.home_city", "Sheffield", G)]),
    ("they moved my appointment. I'm in Leeds now though", []),
    (
        "we moved! I love it here. I'm in a much bigger flat",
        [("preference.stated.home", "I'm in a much bigger flat", G)],
    ),
    # --- timezone ---
    ("My timezone is UTC+8.", [("profile.timezone", "UTC+8", G)]),
    ("My time zone is GMT-05:00.", [("profile.timezone", "UTC-5", G)]),
    ("I'm in PST.", [("profile.timezone", "PST", G)]),
    ("My timezone is Asia/Shanghai.", [("profile.timezone", "Asia/Shanghai", G)]),
    ("我的时区是东八区。", [("profile.timezone", "UTC+8", G)]),
    ("我的时区是 UTC+9。", [("profile.timezone", "UTC+9", G)]),
    ("我用北京时间。", [("profile.timezone", "UTC+8", G)]),
    # --- expertise ---
    ("I'm a beginner in Python.", [("profile.expertise.python", "beginner", G)]),
    ("I'm an expert.", [("profile.expertise", "expert", G)]),
    ("I'm a complete beginner.", [("profile.expertise", "beginner", G)]),
    ("I'm new to Rust.", [("profile.expertise.rust", "beginner", G)]),
    ("I'm an intermediate Python developer.", [("profile.expertise.python", "intermediate", G)]),
    ("I'm a C++ expert.", [("profile.expertise.cpp", "expert", G)]),
    ("I'm an expert in machine learning.", [("profile.expertise.machine_learning", "expert", G)]),
    ("我是新手。", [("profile.expertise", "beginner", G)]),
    ("我是机器学习新手。", [("profile.expertise.机器学习", "beginner", G)]),
    ("我精通Python。", [("profile.expertise.python", "expert", G)]),
    ("我刚开始学Go。", [("profile.expertise.go", "beginner", G)]),
    # a time told of a diet or a thing owned is no skill; "好几年" is a number of years
    ("我吃素好几年了", [("profile.diet", "vegetarian", G)]),
    ("我跑步好几年了", [("profile.expertise.跑步", "intermediate", G)]),
    ("我开的是一辆卡罗拉 开了五年了", [("preference.stated.cars", "我开的是一辆卡罗拉，开了五年了", G)]),
    # years of something that wore out a part of the body are no skill in that part
    ("My knees are shot from years of basketball.", []),
    # --- goals (one multi-valued slot) ---
    ("I want to launch this product.", [("goal.main", "launch this product", G)]),
    ("My goal is to run a marathon.", [("goal.main", "run a marathon", G)]),
    ("My long-term goal is becoming a data scientist.", [("goal.main", "becoming a data scientist", G)]),
    ("I hope to learn Japanese.", [("goal.main", "learn Japanese", G)]),
    ("我想把产品发布出去。", [("goal.main", "把产品发布出去", G)]),
    ("我的目标是通过考试。", [("goal.main", "通过考试", G)]),
    ("我希望成为一名医生。", [("goal.main", "成为一名医生", G)]),
    # --- collaboration rules ---
    ("Let me confirm before you send anything to the client.", [("rule.confirm_before", "send to the client", G)]),
    ("Let me review it before you send it.", [("rule.confirm_before", "send", G)]),
    ("Always ask me before you publish anything.", [("rule.confirm_before", "publish", G)]),
    ("Check with me before paying any invoice.", [("rule.confirm_before", "pay any invoice", G)]),
    ("Don't send emails without my approval.", [("rule.confirm_before", "send emails", G)]),
    ("发给客户前让我确认。", [("rule.confirm_before", "发给客户", G)]),
    ("以后发邮件之前先给我看一下。", [("rule.confirm_before", "发邮件", G)]),
    ("没有我的确认不要付款。", [("rule.confirm_before", "付款", G)]),
    # --- decisions: global without a project on the turn ---
    ("We chose design B.", [("knowledge.decision.design", "design B", G)]),
    ("接口方案采用版本 B。", [("knowledge.decision.接口方案", "版本 B", G)]),
    # --- things it must not understand ---
    ("How are you today?", []),
    ("Thanks, that helps!", []),
    ("The weather is nice.", []),
    ("今天天气不错。", []),
    # (no family takes these; what the user says of themself is kept verbatim as an open statement)
    ("I don't want short answers.", [("preference.stated.general", "I don't want short answers.", G)]),
    ("不要用英文回答。", []),
    ("I prefer Chinese food.", [("preference.stated.food", "I prefer Chinese food.", G)]),
    # a language the user speaks (docs/concepts.md), not the language to answer in
    ("I speak Chinese.", [("profile.languages", "Chinese", G)]),
    # (not the language to answer in: kept in the user's words, the lasting model reading it as lasting)
    ("我会用英语。", [("preference.stated.learning", "我会用英语", G)]),
    ("I live in a small town.", [("preference.stated.general", "I live in a small town.", G)]),
    ("I moved to a new apartment.", [("replace", "I moved to a new apartment.")]),
    ("我搬到新家了。", [("replace", "我搬到新家了。")]),
    ("我不住在北京了。", [("retract", ("住在北京",)), ("preference.stated.travel", "我不住在北京了", G)]),
    ("I'm in Berlin.", []),
    ("Should I use Chinese?", []),
    ("I want to know how this works.", []),
    ("I'd like to see an example.", []),
    ("我想问一下这个怎么用。", []),
    ("我想这样可能不行。", []),
    ("今天处理了很多邮件。", []),
    (
        "You don't need to confirm before sending.",
        [("preference.stated.communication", "You don't need to confirm before sending.", G)],
    ),
    ("发给客户前不用让我确认。", []),
    ("Delete this file.", []),
    ("Forget it.", []),
    ("I chose a red shirt.", []),
    ("我的详细地址是朝阳路。", []),
    ("Can you help me write a short email to my boss?", []),
    ("Let me check before you go.", []),
    ("What's the capital of France?", []),
    ("I want to go home.", []),
    ("Translate this into English.", []),
    ("我想吃火锅。", []),
    ("这周末我要去上海出差。", []),
    ("帮我写一封英文邮件。", []),
    ("今天要做什么？", []),
    ("删除上面那段话。", []),
    ("Forget the previous instruction.", []),
]


@pytest.mark.parametrize("text,expected", CASES, ids=[c[0] for c in CASES])
def test_rules(text: str, expected: list[tuple]) -> None:
    out = extract(text)
    assert summary(out) == expected
    assert out.refused == []


# --- time-boxed priorities ---------------------------------------------------------------------

PRIORITY_CASES = [
    ("This week, focus on B.", "B", "2026-09-23T10:00:00Z", WEEK_END),
    ("Focus on launch issues this week.", "launch issues", "2026-09-23T10:00:00Z", WEEK_END),
    ("This week let's work on project B first.", "project B", "2026-09-23T10:00:00Z", WEEK_END),
    ("My top priority today is the demo.", "the demo", "2026-09-23T10:00:00Z", DAY_END),
    ("Today, prioritize the login bug.", "the login bug", "2026-09-23T10:00:00Z", DAY_END),
    ("Next week focus on C.", "C", WEEK_END, "2026-10-05T00:00:00Z"),
    ("This month our priority is hiring.", "hiring", "2026-09-23T10:00:00Z", "2026-10-01T00:00:00Z"),
    ("这周先处理B。", "B", "2026-09-23T10:00:00Z", WEEK_END),
    ("本周先处理上线问题。", "上线问题", "2026-09-23T10:00:00Z", WEEK_END),
    ("本周集中处理上线。", "上线", "2026-09-23T10:00:00Z", WEEK_END),
    ("今天先把报告写完。", "报告写完", "2026-09-23T10:00:00Z", DAY_END),
    ("我想这周先处理B。", "B", "2026-09-23T10:00:00Z", WEEK_END),
]


@pytest.mark.parametrize("text,value,valid_from,valid_until", PRIORITY_CASES, ids=[c[0] for c in PRIORITY_CASES])
def test_priorities_are_time_boxed(text: str, value: str, valid_from: str, valid_until: str) -> None:
    out = extract(text)
    assert summary(out) == [("priority.focus", value, G)]
    rec = out.records[0]
    assert rec["kind"] == "priority"
    assert (rec["valid_from"], rec["valid_until"]) == (valid_from, valid_until)


def test_priority_for_now_takes_the_registry_default_lifetime() -> None:
    out = extract("目前优先处理线上故障。")
    rec = out.records[0]
    assert (rec["attribute"], rec["value"]) == ("priority.focus", "线上故障")
    assert "valid_until" not in rec
    built = build_record(parse_record(rec), op_id="x", at=AT)
    assert built.valid_until == AT + timedelta(days=7)


def test_focus_without_time_box_or_priority_word_is_not_a_priority() -> None:
    assert extract("Work on the report.").items == []
    assert extract("先把项目A上线。").items == []


@pytest.mark.parametrize(
    "text",
    [
        "Put A on hold. Focus on B this week.",
        "A 先停一下，这周处理 B。",
        "Put the release on hold; this week focus on docs.",
    ],
)
def test_putting_the_old_focus_on_hold_links_the_new_one(text: str) -> None:
    out = extract(text)
    assert [p.record["attribute"] for p in out.items] == ["priority.focus"]
    assert out.items[0].link_current is True


def test_a_new_focus_without_hold_or_correction_is_not_linked() -> None:
    assert extract("This week, focus on B.").items[0].link_current is False


@pytest.mark.parametrize(
    "at,end",
    [
        (datetime(2026, 9, 23, 10, 0, tzinfo=UTC), datetime(2026, 9, 28, tzinfo=UTC)),  # Wed
        (datetime(2026, 9, 21, 0, 0, tzinfo=UTC), datetime(2026, 9, 28, tzinfo=UTC)),  # Mon 00:00
        (datetime(2026, 9, 27, 23, 59, tzinfo=UTC), datetime(2026, 9, 28, tzinfo=UTC)),  # Sun late
        (datetime(2026, 12, 31, 12, 0, tzinfo=UTC), datetime(2027, 1, 4, tzinfo=UTC)),  # year end
        (datetime(2027, 1, 1, 8, 0, tzinfo=UTC), datetime(2027, 1, 4, tzinfo=UTC)),  # ISO week 53
    ],
)
def test_week_end_is_monday_midnight_utc_of_the_next_iso_week(at: datetime, end: datetime) -> None:
    assert week_end(at) == end
    assert end.weekday() == 0 and end > at


def test_day_and_month_ends() -> None:
    assert day_end(datetime(2026, 9, 23, 23, 59, tzinfo=UTC)) == datetime(2026, 9, 24, tzinfo=UTC)
    assert month_end(datetime(2026, 12, 15, tzinfo=UTC)) == datetime(2027, 1, 1, tzinfo=UTC)
    assert month_end(datetime(2026, 2, 28, 23, 0, tzinfo=UTC)) == datetime(2026, 3, 1, tzinfo=UTC)


def test_week_window_is_computed_from_the_turns_event_time() -> None:
    sunday = datetime(2026, 9, 27, 22, 0, tzinfo=UTC)
    rec = extract("这周先处理B。", at=sunday).records[0]
    assert rec["valid_until"] == "2026-09-28T00:00:00Z"
    assert rec["observed_at"] == "2026-09-27T22:00:00Z"


# --- rule 5: this time vs from now on ------------------------------------------------------------

TEMPORARY = [
    ("This time, answer in English.", "preference.language", "English"),
    ("Just this once, keep it short.", "preference.response.detail", "concise"),
    ("For this answer, be concise.", "preference.response.detail", "concise"),
    ("Give me a short answer.", "preference.response.detail", "concise"),
    ("Explain this question in detail.", "preference.response.detail", "detailed"),
    ("Explain recursion step by step.", "preference.response.detail", "detailed"),
    ("这次用英文回答。", "preference.language", "English"),
    ("这一次简短一点。", "preference.response.detail", "concise"),
    ("本次回答详细一些。", "preference.response.detail", "detailed"),
    ("请详细说说这一题。", "preference.response.detail", "detailed"),
    ("This time, let me review it before you send it.", "rule.confirm_before", "send"),
]


@pytest.mark.parametrize("text,attribute,value", TEMPORARY, ids=[c[0] for c in TEMPORARY])
def test_this_time_is_session_scoped_and_short_lived(text: str, attribute: str, value: str) -> None:
    out = extract(text)
    assert summary(out) == [(attribute, value, S)]
    rec = out.records[0]
    assert rec["valid_from"] == "2026-09-23T10:00:00Z" and rec["valid_until"] == TEMP_END
    assert build_record(parse_record(rec), op_id="x", at=AT).valid_until == AT + TEMPORARY_LIFETIME


@pytest.mark.parametrize("text", [t for t, _, _ in TEMPORARY])
def test_this_time_without_a_session_yields_nothing(text: str) -> None:
    out = extract(text, session=None)
    assert out.items == []
    assert out.refused == [REFUSED_NO_SESSION]


@pytest.mark.parametrize(
    "text,attribute,value",
    [
        ("From now on, answer in English.", "preference.language", "English"),
        ("以后用中文回答。", "preference.language", "Chinese"),
        ("今后都简短一点。", "preference.response.detail", "concise"),
        ("从现在开始，详细一些。", "preference.response.detail", "detailed"),
        ("Always give me examples first.", "preference.explanation_style", "example first"),
        ("从这次以后都用英文回答。", "preference.language", "English"),
    ],
)
def test_from_now_on_is_the_lasting_global_record(text: str, attribute: str, value: str) -> None:
    out = extract(text)
    assert summary(out) == [(attribute, value, G)]
    assert "valid_until" not in out.records[0]


def test_project_wording_gives_the_project_scope_and_never_widens() -> None:
    assert summary(extract("In this project, answer in detail.", project="p1")) == [
        ("preference.response.detail", "detailed", P)
    ]
    assert summary(extract("这个项目里详细一些。", project="p1")) == [("preference.response.detail", "detailed", P)]
    out = extract("In this project, answer in detail.", project=None)
    assert out.items == [] and out.refused == [REFUSED_NO_PROJECT]


def test_preferences_stay_global_in_a_project_turn_without_project_wording() -> None:
    assert summary(extract("I prefer short answers.", project="p1")) == [("preference.response.detail", "concise", G)]


@pytest.mark.parametrize(
    "text,attribute,value",
    [
        ("We chose design B.", "knowledge.decision.design", "design B"),
        ("We chose API design B.", "knowledge.decision.api_design", "API design B"),
        ("We decided to use PostgreSQL for the database.", "knowledge.decision.database", "PostgreSQL"),
        ("For the database, we chose PostgreSQL.", "knowledge.decision.database", "PostgreSQL"),
        ("We went with option 2.", "knowledge.decision.option", "option 2"),
        ("We decided to postpone the launch.", "knowledge.decision", "postpone the launch"),
        ("接口方案采用版本 B。", "knowledge.decision.接口方案", "版本 B"),
        ("我们决定采用方案B。", "knowledge.decision.方案", "方案B"),
        ("最终决定用React。", "knowledge.decision", "React"),
    ],
)
def test_decisions_are_project_knowledge(text: str, attribute: str, value: str) -> None:
    out = extract(text, project="p1")
    assert summary(out) == [(attribute, value, P)]
    assert out.records[0]["kind"] == "knowledge"


# --- deletion ------------------------------------------------------------------------------------

FORGET = [
    ("Forget that I live in Beijing.", "profile.home_city", "Beijing"),
    ("Please forget my home city.", "profile.home_city", None),
    ("Forget my timezone.", "profile.timezone", None),
    ("Forget that I prefer short answers.", "preference.response.detail", "concise"),
    ("Forget my goals.", "goal.main", None),
    ("Delete my goal to learn Rust.", "goal.main", "learn Rust"),
    ("Can you forget that I want to learn Rust?", "goal.main", "learn Rust"),
    ("忘掉我住在北京。", "profile.home_city", "北京"),
    ("忘记我的目标。", "goal.main", None),
    ("删除我的时区。", "profile.timezone", None),
    ("删除关于我住址的记忆。", "profile.home_city", None),
    ("请忘记我喜欢简短回答。", "preference.response.detail", "concise"),
]


@pytest.mark.parametrize("text,attribute,value", FORGET, ids=[c[0] for c in FORGET])
def test_forget_is_a_command_matching_attribute_and_value(text: str, attribute: str, value: str | None) -> None:
    out = extract(text)
    assert out.records == []
    assert len(out.commands) == 1
    cmd = out.commands[0]
    assert cmd["op"] == "forget" and cmd["tenant"] == "t1" and cmd["user"] == "u1"
    expected = {"attribute": attribute} if value is None else {"attribute": attribute, "value": value}
    assert cmd["match"] == expected
    assert out.items[0].link_current is False


def test_forget_value_matches_what_the_same_wording_stored() -> None:
    stored = extract("我住在北京。").records[0]
    cmd = extract("忘掉我住在北京。").commands[0]
    assert cmd["match"] == {"attribute": stored["attribute"], "value": stored["value"]}


# --- explicit corrections --------------------------------------------------------------------------

CORRECTIONS = [
    ("Actually, I prefer detailed answers.", "preference.response.detail", "detailed"),
    ("No, answer in English.", "preference.language", "English"),
    ("That was wrong. From now on, answer in detail.", "preference.response.detail", "detailed"),
    ("That earlier preference was wrong; use Chinese from now on.", "preference.language", "Chinese"),
    ("I actually live in Paris.", "profile.home_city", "Paris"),
    ("I no longer live in Beijing, I moved to Shanghai.", "profile.home_city", "Shanghai"),
    ("Switch to English.", "preference.language", "English"),
    ("不对，以后改成详细一些。", "preference.response.detail", "detailed"),
    ("不对，我住在上海。", "profile.home_city", "上海"),
    ("其实我更喜欢先看例子。", "preference.explanation_style", "example first"),
    ("改成英文。", "preference.language", "English"),
    ("更正一下：我的时区是UTC+9。", "profile.timezone", "UTC+9"),
    ("之前那个不对。以后简短一点。", "preference.response.detail", "concise"),
    ("我搬到杭州了。", "profile.home_city", "杭州"),
]


@pytest.mark.parametrize("text,attribute,value", CORRECTIONS, ids=[c[0] for c in CORRECTIONS])
def test_explicit_corrections_link_to_the_current_record(text: str, attribute: str, value: str) -> None:
    out = extract(text)
    assert summary(out) == [(attribute, value, G)]
    assert out.items[0].link_current is True
    assert "corrects" not in out.records[0]  # the processor fills it from the state


@pytest.mark.parametrize(
    "text",
    [
        "I prefer short answers.",
        "我住在北京。",
        "用中文回答。",
        "This week, focus on B.",
        "This time, answer in English.",
    ],
)
def test_plain_statements_are_not_corrections(text: str) -> None:
    assert [p.link_current for p in extract(text).items] == [False]


@pytest.mark.parametrize(
    "text",
    [
        "From now on, answer in detail.",
        "以后用中文回答。",
        "今后都简短一点。",
        "Going forward, keep your answers brief.",
    ],
)
def test_from_now_on_restates_the_lasting_slot_and_links_it(text: str) -> None:
    # "以后改成这样": without the link, rule 3 would park the new value as pending_review
    assert [p.link_current for p in extract(text).items] == [True]


@pytest.mark.parametrize(
    "text",
    [
        "Actually, let me confirm before you publish anything.",
        "From now on, let me review it before you send it.",
        "不对，我的目标是通过考试。",
        "Actually, I want to learn Rust.",
    ],
)
def test_multi_valued_slots_are_never_linked(text: str) -> None:
    out = extract(text)
    assert len(out.items) == 1 and out.items[0].link_current is False


def test_a_standalone_correction_links_only_the_next_understood_sentence() -> None:
    out = extract("That's wrong. I live in Paris. I want to learn Rust.")
    assert [(p.record["attribute"], p.link_current) for p in out.items] == [
        ("profile.home_city", True),
        ("goal.main", False),
    ]


# --- rule 7: secrets -----------------------------------------------------------------------------

SECRETS = [
    "My password is hunter2222.",
    "My API key is sk-abcdefghijklmnop1234.",
    "The verification code is 123456.",
    "My card number is 4111 1111 1111 1111.",
    "我的密码是abc12345。",
    "验证码是 654321。",
    "口令：abc123。",
]


@pytest.mark.parametrize("text", SECRETS)
def test_secrets_are_refused_and_redacted(text: str) -> None:
    out = extract(text)
    assert out.items == []
    assert out.refused == [REFUSED_SECRET]
    assert "[REDACTED:" in out.redacted_text


def test_a_secret_sentence_yields_nothing_but_other_sentences_still_count() -> None:
    out = extract("My password is hunter2222 and I live in Paris. Always answer in English.")
    assert summary(out) == [("preference.language", "English", G)]
    assert out.refused == [REFUSED_SECRET]
    assert "hunter2222" not in out.redacted_text
    assert all("hunter2222" not in str(r) for r in out.records)


def test_chinese_secret_sentence_is_dropped_from_a_multi_sentence_turn() -> None:
    out = extract("我的密码是abc12345。我住在上海。")
    assert summary(out) == [("profile.home_city", "上海", G)]
    assert out.refused == [REFUSED_SECRET]
    assert "abc12345" not in out.redacted_text


def test_quotes_and_statements_are_the_users_wording() -> None:
    rec = extract("Actually, I prefer detailed answers.").records[0]
    assert rec["statement"] == "Actually, I prefer detailed answers."
    assert rec["evidence"] == [
        {"source_type": "conversation", "source_id": "turn-1", "quote": "Actually, I prefer detailed answers."}
    ]


# --- roles, turns, determinism ------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["assistant", "system"])
def test_assistant_and_system_turns_never_become_assertions(role: str) -> None:
    out = extract("From now on I will answer in English. You live in Beijing. My password is hunter2222.", role=role)
    assert out.items == [] and out.refused == []
    assert "hunter2222" not in out.redacted_text


def test_one_turn_may_yield_several_proposals() -> None:
    out = extract(
        "From now on, answer in English and keep it short. I moved to Shanghai. "
        "This week focus on the launch; let me confirm before you send anything to the client."
    )
    assert summary(out) == [
        ("preference.response.detail", "concise", G),
        ("preference.language", "English", G),
        ("profile.home_city", "Shanghai", G),
        ("priority.focus", "the launch", G),
        ("rule.confirm_before", "send to the client", G),
    ]


def test_mixed_chinese_turn() -> None:
    out = extract("以后用中文回答，简短一点。我住在北京！这周先处理B；发给客户前让我确认。")
    assert summary(out) == [
        ("preference.response.detail", "concise", G),
        ("preference.language", "Chinese", G),
        ("profile.home_city", "北京", G),
        ("priority.focus", "B", G),
        ("rule.confirm_before", "发给客户", G),
    ]


def test_extraction_is_deterministic() -> None:
    text = "不对，以后改成详细一些。这周先处理B。I moved to Shanghai."
    a = EXTRACTOR.extract(turn(text))
    b = EXTRACTOR.extract(turn(text))
    assert a.model_dump() == b.model_dump()


def test_turn_without_id_gets_a_deterministic_source_id_and_parses_iso_time() -> None:
    t1 = Turn(tenant="t1", user="u1", text="I live in Paris.", at="2026-09-23T10:00:00Z")
    t2 = Turn(tenant="t1", user="u1", text="I live in Paris.", at="2026-09-23T10:00:00+00:00", extra="ignored")
    assert t1.at == AT and t1.source_id() == t2.source_id() and t1.source_id().startswith("turn_")
    rec = EXTRACTOR.extract(t1).records[0]
    assert rec["evidence"][0]["source_id"] == t1.source_id()
    build_record(parse_record(rec), op_id="x", at=t1.at)


def test_rule_extractor_satisfies_the_protocol() -> None:
    assert isinstance(RuleExtractor(), Extractor)


def test_a_proposal_is_a_record_or_a_command() -> None:
    with pytest.raises(ValueError):
        Proposal()
    with pytest.raises(ValueError):
        Proposal(record={"a": 1}, command={"op": "forget"})


def test_sentence_splitting() -> None:
    parts = [s.text for s in split_sentences("Use v1.2 of the API. 先处理B。然后呢？ok; done!\nnext")]
    assert parts == ["Use v1.2 of the API.", "先处理B。", "然后呢？", "ok;", "done!", "next"]
    assert [s.question for s in split_sentences("Is it? 是吗。yes.")] == [True, True, False]


def test_expertise_records_use_the_domain_attribute_and_a_canonical_level() -> None:
    recs = extract("I'm a beginner in Python. I'm an expert in Go.").records
    assert [(r["attribute"], r["value"]) for r in recs] == [
        ("profile.expertise.python", "beginner"),
        ("profile.expertise.go", "expert"),
    ]
    assert all(r["kind"] == "preference" for r in recs)


def test_goals_are_multi_valued_goal_main_records() -> None:
    recs = extract("I want to launch this product. My goal is to run a marathon.").records
    assert [(r["kind"], r["attribute"]) for r in recs] == [("goal", "goal.main"), ("goal", "goal.main")]
    built = [build_record(parse_record(r), op_id=f"x{i}", at=AT) for i, r in enumerate(recs)]
    assert all(b.cardinality.value == "multi" for b in built)


@pytest.mark.parametrize(
    "text,detail",
    [
        ("说清楚点，别绕", True),
        ("讲清楚一点", True),
        # "说清楚的事": things that can be said clearly, a relative clause, not a request for detail
        ("我最讨厌开会，能在群里说清楚的事非要拉个会", False),
    ],
)
def test_asking_to_say_it_clearly_is_detail_and_a_clause_about_things_said_clearly_is_not(
    text: str, detail: bool
) -> None:
    from slotstream.memory.extraction.detail import DETAIL

    assert bool(DETAIL.hits(text, datetime(2026, 1, 1, tzinfo=UTC))) is detail


@pytest.mark.parametrize(
    "text",
    [
        "My thesis draft is due to my supervisor on April 10.",
        "Our team standup is every day at 9:30, it's 15 minutes on Zoom.",
        "I'm not teaching anymore, finished my last term on friday",
    ],
)
def test_a_sentence_with_a_day_a_time_or_an_amount_is_no_level_of_skill(text: str) -> None:
    # a word of level ("thesis", "teaching", "every day") beside a day, a time or an amount tells
    # of a plan or an event: no expertise is read from it
    assert not [r for r in extract(text).records if r["attribute"].startswith("profile.expertise")]


# --- chat is not memory: the lasting model's veto ---------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "My 8-year-old only eats beige food. Any tips?",
        "I've only got 5 minutes, what's the gist of the Keynesian vs Austrian debate?",
        "The team I manage prefers async updates over meetings. What tools do that well?",
        "今晚要赶个ddl 待会儿可能会一直问你",
    ],
)
def test_a_turn_the_lasting_model_reads_as_chat_keeps_nothing_lasting(text: str, monkeypatch) -> None:
    out = extract(text)
    assert [p for p in out.items if p.record is not None and p.record["scope"] == "global"] == []
    assert out.refused == [REFUSED_CHAT]
    # the rules alone read something lasting in each: the veto is what keeps it out
    monkeypatch.setattr(extractor_module, "reads_as_chat", lambda text: False)
    assert any(p.record is not None and p.record["scope"] == "global" for p in extract(text).items)


@pytest.mark.parametrize(
    "text,attribute",
    [
        # a fact the user leads with, then asks for something
        ("I'm vegetarian btw, what should I cook tonight?", "preference.stated.food"),
        # safety-relevant: never vetoed, wherever the turn says it
        ("I'm allergic to peanuts, what snack should I bring to the game?", "health.stated.food"),
        ("what snack should I bring to the game? I'm allergic to peanuts", "profile.allergies"),
        ("any good snacks for a road trip? fyi I have celiac disease", "profile.allergies"),
        ("At 70 my eyes aren't what they were, so I need large print or audio.", "profile.accessibility"),
        # bound in time: it ends when it says
        ("this week I'm working out of the Berlin office, back home Friday", "preference.stated.fitness"),
        ("这周我在深圳出差 周五回来", "profile.routine"),
        # a named value in a slot of its own
        ("I'm in Berlin for the summer, so I'm on CET", "profile.timezone"),
        # how to answer has rules of its own for what lasts
        ("Keep answers under 100 words.", "preference.response.length"),
        ("I hate cilantro.", "profile.dislikes"),
    ],
)
def test_what_the_lasting_model_does_not_veto(text: str, attribute: str) -> None:
    out = extract(text)
    assert attribute in [p.record["attribute"] for p in out.items if p.record is not None]
    assert REFUSED_CHAT not in out.refused


def _statement(words: str) -> Proposal:
    record = {"kind": "preference", "attribute": "preference.stated.food", "scope": "global", "statement": words}
    return Proposal(record=record, rule="statement")


def test_a_vetoed_statement_takes_its_replacement_with_it_and_only_a_leading_fact_is_spared(monkeypatch) -> None:
    monkeypatch.setattr(extractor_module, "reads_as_chat", lambda text: True)
    monkeypatch.setattr(extractor_module, "clearly_lasting", lambda words: True)
    command = {"op": "retract", "tenant": "t1", "user": "u1", "replaced_by": "I only drink oat milk now."}
    replace = Proposal(command=command, rule="replace")
    pasted = "is this review real?\n\nI only drink oat milk now."
    # clearly lasting words inside what the turn quotes are not the user's lead: both go
    assert extractor_module._vetted([_statement("I only drink oat milk now."), replace], pasted) == []
    # the same words leading the turn stay, and so does what they replace
    leading = "I only drink oat milk now. Any latte tips?"
    kept = extractor_module._vetted([_statement("I only drink oat milk now."), replace], leading)
    assert len(kept) == 2
    # a correction is never the model's to veto
    corrected = Proposal(record={**_statement("Make that soy.").record, "corrects": "r1"}, rule="statement")
    assert extractor_module._vetted([corrected], pasted) == [corrected]


@pytest.mark.parametrize(
    "text,attribute",
    [
        ("My budget for a new laptop is 1200 euros max.", "preference.budget.electronics"),
        ("Our anniversary is June 3.", "profile.dates"),
        ("I follow a strict keto diet.", "profile.diet"),
    ],
)
def test_the_structured_slots_are_the_rules_to_read_never_the_lasting_models(
    text: str, attribute: str, monkeypatch
) -> None:
    monkeypatch.setattr(extractor_module, "reads_as_chat", lambda text: True)
    monkeypatch.setattr(extractor_module, "clearly_lasting", lambda words: False)
    assert attribute in [p.record["attribute"] for p in extract(text).items if p.record is not None]
    # what the user says in their own words is the model's to veto
    assert extract("I love hiking.").items == []


@pytest.mark.parametrize(
    "text",
    [
        "One of my students is dyslexic and hates reading aloud. How can I include him?",
        "my twin brother is colourblind (red-green). which board games are a nightmare for him?",
    ],
)
def test_someone_else_the_user_speaks_of_is_not_the_user(text: str) -> None:
    # the families cut other people's clauses with the people the statements know of ("one of my
    # students", "my twin brother"): what follows is theirs
    assert extract(text).records == []


@pytest.mark.parametrize(
    ("text", "attribute"),
    [
        ("Our family lives in Nairobi.", "profile.home_city"),
        ("My date of birth is March 3, 1990 and my birthday dinner is always sushi.", "profile.dates"),
    ],
)
def test_words_that_are_no_one_else_after_my_keep_the_users_statement(text: str, attribute: str) -> None:
    assert attribute in {r["attribute"] for r in extract(text).records}


@pytest.mark.parametrize(
    "text",
    [
        "Can you develop a food allergy as an adult, out of nowhere?",
        "I'm building an allergy tracker app, draft a JSON schema for a user's allergy list",
        "隔壁邻居对蜜蜂过敏，我在阳台养蜂会不会有问题",
    ],
)
def test_an_allergy_asked_about_built_or_someone_elses_is_not_the_users(text: str) -> None:
    assert not any(r["attribute"] == "profile.allergies" for r in extract(text).records)


@pytest.mark.parametrize(
    ("text", "allergen"),
    [("Peanut allergy here, so no satay for me.", "Peanut"), ("Shellfish allergy, a bad one.", "Shellfish")],
)
def test_an_allergy_said_first_is_still_read(text: str, allergen: str) -> None:
    values = [r["value"] for r in extract(text).records if r["attribute"] == "profile.allergies"]
    assert values and values[0].casefold().startswith(allergen.casefold())


@pytest.mark.parametrize(
    "text",
    [
        "周五要给客户汇报，这两天帮我盯一下PPT的逻辑",
        "下周要考线性代数 帮我复习一下",
        "还有十五分钟就得出门，快帮我写个今晚的祝酒词",
        "can't focus at all right now, help me break this email into smaller steps",
    ],
)
def test_what_the_assistant_is_asked_to_do_is_no_focus(text: str) -> None:
    assert not any(r["attribute"] == "priority.focus" for r in extract(text).records)


@pytest.mark.parametrize(
    ("text", "focus"),
    [
        ("这周重点是上线，帮我列个计划", "上线"),
        ("This week I'm focused on the migration, help me write the plan", "migration"),
    ],
)
def test_a_focus_said_before_a_request_is_kept(text: str, focus: str) -> None:
    values = [r["value"] for r in extract(text).records if r["attribute"] == "priority.focus"]
    assert values and focus in values[0]


@pytest.mark.parametrize(
    "text",
    [
        "I can't focus at all today, my brain is mush",  # a cue word negated
        "今天已经喝了四杯咖啡，手都在抖哈哈",  # "都在" of a hand, not of the people at work
        "I'm on crutches this week after rolling my ankle.",  # on crutches, not on a task
    ],
)
def test_a_state_of_the_moment_is_no_focus(text: str) -> None:
    assert not any(r["attribute"] == "priority.focus" for r in extract(text).records)


def test_the_people_at_work_all_on_one_thing_is_a_focus() -> None:
    values = [r["value"] for r in extract("这周我们都在忙上线").records if r["attribute"] == "priority.focus"]
    assert values and "上线" in values[0]


@pytest.mark.parametrize(
    ("text", "scope"),
    [
        ("帮我出一份公司团建的活动策划大纲 30人 预算两万左右", "session:s1"),  # the request's budget
        ("help me pick a laptop under $1500", "session:s1"),
        ("Help me stay on track: our monthly grocery budget is $400 for the two of us.", "global"),  # a period
        ("我们部门聚餐人均不能超过80块 你帮我找馆子的时候注意下", "global"),  # "when you …": standing
    ],
)
def test_a_budget_said_with_a_request_is_the_requests(text: str, scope: str) -> None:
    budgets = [r for r in extract(text).records if r["attribute"].startswith("preference.budget.")]
    assert budgets and {r["scope"] for r in budgets} == {scope}
