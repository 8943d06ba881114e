"""Corrections and forgets in the user's own words find their target among what is stored
(memory/resolution.py, memory/reconcile.py `_restate` and `_forget`), never through an attribute
name built from the phrase; an ambiguous one changes nothing and tells the session."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from slotstream.memory.extraction import RuleExtractor, Turn
from slotstream.memory.extraction.restatement import restatement, retraction
from slotstream.memory.models import OpIn, Outcome, Status
from slotstream.memory.reconcile import PENDING_CORRECTION, UserView, reconcile
from slotstream.memory.resolution import naming_words, value_kind, without_clauses
from slotstream.memory.validation import validate_op

T0 = datetime(2025, 12, 1, 14, 0, tzinfo=UTC)
M = timedelta(minutes=1)


class User:
    """One user's memory in process: records written as a tool would, turns through the extractor."""

    def __init__(self) -> None:
        self.view = UserView()
        self.n = 0

    def op(self, at: datetime, **body: Any) -> Any:
        self.n += 1
        op_id, parsed = validate_op(OpIn(at=at, op_id=f"o{self.n}", **body))
        t = reconcile(self.view, parsed, at, op_id)
        self.view.apply(t)
        return t

    def write(self, attribute: str, value: str, at: datetime = T0, kind: str = "knowledge") -> None:
        label = attribute.split(".", 1)[-1].replace("_", " ")
        record = {"tenant": "t", "user": "u", "kind": kind, "attribute": attribute, "value": value}
        self.op(at, record={**record, "statement": f"{label}: {value}"})

    def say(self, text: str, at: datetime, session: str = "s1") -> list[Any]:
        turn = Turn(tenant="t", user="u", session=session, text=text, at=at, turn_id=f"t{self.n}")
        out = []
        for p in RuleExtractor().extract(turn).items:
            body: dict[str, Any] = {"command": p.command} if p.command is not None else {"record": p.record}
            if p.record is not None and p.link_current:
                body["record"] = {**p.record, "corrects_current": True}
            out.append(self.op(at, **body))
        return out

    def values(self) -> list[str]:
        """Every live value, whatever its attribute."""
        return [v for values in self.live().values() for v in values]

    def live(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for r in self.view.records.values():
            if r.status in (Status.ACTIVE, Status.CANDIDATE):
                out.setdefault(r.attribute, []).append(str(r.value))
        return out


@pytest.mark.parametrize(
    "sentence,value,about,old,change",
    [
        ("Make that $150,000.", "$150,000", (), None, True),
        ("No wait, change that to Thursday.", "Thursday", (), None, True),
        ("Keep the location, but change the quantity to 750.", "750", ("quantity",), None, True),
        ("The rate is now $225.", "$225", ("rate",), None, True),
        ("Actually, send it to New York instead.", "New York", (), None, True),
        ("Let's proceed with GlobalTech for the contract.", "GlobalTech", ("contract",), None, True),
        ("Per the CEO, we'll be doing monthly reviews.", "monthly reviews", (), None, True),
        ("We've finalized the pricing at $50 per unit.", "$50 per unit", ("pricing",), None, True),
        ("不是周二，是周四", "周四", (), "周二", True),
        ("预算改成五万吧", "五万", ("预算",), None, True),
    ],
)
def test_a_new_value_for_something_stored_is_read_with_what_names_it(sentence, value, about, old, change) -> None:
    found = restatement(sentence)
    assert found is not None
    assert (found.value, found.about, found.old_value, found.change) == (value, about, old, change)


@pytest.mark.parametrize(
    "sentence",
    [
        "The weather today is gorgeous.",  # no word of change, nothing a memory holds
        "My flight tonight is delayed by two hours.",
        "Wait, go back to the second point.",  # a part of the conversation, not a value
        "What is the budget now?",  # a question
        "澳大利亚的首都是哪里？",
        "我朋友是左撇子",
        "把这个菜谱变成购物清单。",  # material at hand
    ],
)
def test_ordinary_chat_restates_nothing(sentence: str) -> None:
    assert restatement(sentence) is None


def test_value_kinds_keep_an_amount_from_replacing_a_day() -> None:
    kinds = {v: value_kind(v) for v in ("$75,000", "750", "Thursday", "this week", "New York", "green theme", "周四")}
    assert kinds == {
        "$75,000": "money",
        "750": "number",
        "Thursday": "day",
        "this week": "day",
        "New York": "name",
        "green theme": "text",
        "周四": "day",
    }
    assert value_kind("Prefer afternoon meetings") == "text"  # a time word inside a phrase is not a day
    assert naming_words(["shipping"]) == naming_words(["ship"])  # stems meet


def test_make_that_replaces_the_only_amount_and_nothing_else() -> None:
    u = User()
    u.write("knowledge.project_budget", "$100,000")
    u.write("knowledge.meeting_date", "Tuesday")
    u.say("Make that $150,000.", T0 + 5 * M)
    assert u.live() == {"knowledge.project_budget": ["$150,000"], "knowledge.meeting_date": ["Tuesday"]}


def test_the_words_naming_it_pick_the_target_among_several_of_its_kind() -> None:
    u = User()
    u.write("knowledge.order_quantity", "1000")
    u.write("knowledge.order_location", "LA distribution center")
    u.write("knowledge.team_size", "12")
    u.say("Keep the location, but change the quantity to 750.", T0 + 5 * M)
    assert u.live()["knowledge.order_quantity"] == ["750"]
    assert u.live()["knowledge.team_size"] == ["12"]
    assert u.live()["knowledge.order_location"] == ["LA distribution center"]


def test_the_same_value_said_twice_ends_together() -> None:
    # a tool wrote the policy; the user stated it in the conversation (a decision record); a later
    # override replaces both
    u = User()
    u.write("knowledge.policy_decision", "unlimited PTO")
    u.say("The team decided on unlimited PTO.", T0 + M)
    u.say("Per the CEO, we'll be doing monthly reviews.", T0 + 3 * M)
    values = [v for vs in u.live().values() for v in vs]
    assert "unlimited PTO" not in values and "monthly reviews" in values


def test_go_back_restores_through_a_new_correction() -> None:
    u = User()
    u.write("knowledge.design_choice", "card-based UI")
    u.say("Let's try green theme instead.", T0 + 2 * M)
    assert u.live()["knowledge.design_choice"] == ["green theme"]
    u.say("Actually, let's go back to card-based UI.", T0 + 4 * M)
    assert u.live()["knowledge.design_choice"] == ["card-based UI"]


def test_an_ambiguous_correction_changes_nothing_and_tells_the_session() -> None:
    u = User()
    u.write("knowledge.launch_date", "Monday", at=T0 - 3 * timedelta(days=1))
    u.write("knowledge.review_date", "Friday", at=T0 - 3 * timedelta(days=1))
    (t,) = u.say("No wait, change that to Thursday.", T0)
    assert u.live()["knowledge.launch_date"] == ["Monday"] and u.live()["knowledge.review_date"] == ["Friday"]
    assert len(u.live()[PENDING_CORRECTION]) == 1
    note = next(r for r in u.view.records.values() if r.attribute == PENDING_CORRECTION)
    assert note.scope == "session:s1" and "Monday" in note.statement and "Friday" in note.statement
    assert any(c.get("reason") == "ambiguous" for c in t.changes)


def test_nothing_to_restate_is_a_no_op() -> None:
    u = User()
    (t,) = u.say("Make that $150,000.", T0)
    assert t.outcome == Outcome.NOOP and u.live() == {}


def test_a_business_fact_or_a_verbatim_statement_is_never_rewritten_by_a_restatement() -> None:
    u = User()
    u.op(
        T0,
        record={
            "tenant": "t",
            "user": "u",
            "kind": "fact",
            "attribute": "fact.list_price",
            "value": "$99",
            "statement": "list price: $99",
            "authority": "authoritative_source",
            "valid_from": "2025-01-01T00:00:00Z",
            "valid_until": "2026-01-01T00:00:00Z",
            "evidence": [{"source_type": "document", "source_id": "catalog"}],
        },
    )
    u.say("I love jazz, always have.", T0)
    (t,) = u.say("Make that $150,000.", T0 + M)
    assert t.outcome == Outcome.NOOP and u.live()["fact.list_price"] == ["$99"]
    (t,) = u.say("Let's go with hip hop instead.", T0 + 2 * M)
    assert t.outcome == Outcome.NOOP  # the verbatim "I love jazz" is not a slot with a value to replace
    assert any("jazz" in v for vs in u.live().values() for v in vs)


def test_a_forget_in_the_users_words_finds_what_is_stored() -> None:
    u = User()
    u.say("My favourite band is Radiohead.", T0)
    assert "Radiohead" in [v for vs in u.live().values() for v in vs]
    (t,) = u.say("Please forget my favourite band.", T0 + M)
    assert "Radiohead" not in [v for vs in u.live().values() for v in vs]
    assert any(c["type"] == "suppressed" for c in t.changes)  # the value is kept out where it was


def test_a_forget_of_a_thing_mentioned_finds_it_by_meaning() -> None:
    u = User()
    u.say("I take sertraline 50mg every morning.", T0)
    u.say("and I have trouble sleeping most nights", T0 + M)
    u.say("please forget the medication I mentioned last night", T0 + 24 * 60 * M)
    live = u.values()
    assert not any("sertraline" in v for v in live) and any("trouble sleeping" in v for v in live)


def test_a_forget_of_something_never_stored_changes_nothing() -> None:
    u = User()
    u.write("knowledge.project_budget", "$100,000")
    (t,) = u.say("Forget my salary.", T0 + M)
    assert t.outcome == Outcome.NOOP and u.live() == {"knowledge.project_budget": ["$100,000"]}


# --- retractions in the user's words -----------------------------------------------------------


@pytest.mark.parametrize(
    "sentence,about",
    [
        ("I quit the gym, way too expensive.", ("gym",)),
        ("I left the book club, too much drama honestly", ("book", "club")),
        ("FYI I'm not coaching anymore, handed it over to another parent", ("coaching",)),
        ("dropped out of the program. too much with the new job", ("program",)),
        ("doc took me off the blood thinner last week", ("blood", "thinner")),
        ("I dropped the kids at school", ("kids",)),
        ("在职那个我退了，周末又空出来了", ("在职",)),
        ("车卖了，现在上班都坐地铁", ("车",)),
        # in a later clause, or after a lead of two words
        ("my shins gave up, I'm done with running for good", ("running",)),
        ("fully remote since this week, no more commute for me", ("commute",)),
        ("good news, the low fodmap phase is over, my GI said I can eat everything again", ("low", "fodmap", "phase")),
        # other ways of saying it ended
        ("Done with the low-carb thing, it wasn't working for me.", ("low-carb", "thing")),
        ("I've stopped the morning runs, my knee just can't take it", ("morning", "runs")),
        ("quit smoking three weeks ago and haven't touched one since!", ("smoking",)),
        ("my back has put an end to the running, physio's orders", ("running",)),
        ("tuesday football's done, the team folded. sad times", ("tuesday", "football")),
        ("the league folded, sad times", ("league",)),
        ("车卖了 反正也不怎么开", ("车",)),  # ("不怎么" asks nothing)
        ("健身房那边我不去了 卡已经转给别人了", ("健身房",)),
        ("音乐会员不续了 现在听免费的", ("音乐会员",)),
        ("现在不怎么看韩剧了 没意思", ("看韩剧",)),
    ],
)
def test_what_no_longer_holds_is_read_in_the_users_words(sentence: str, about: tuple[str, ...]) -> None:
    assert retraction(sentence) == about


@pytest.mark.parametrize(
    "sentence",
    [
        "I left the stove on",
        "I stopped by the store after work",
        "I quit",
        "Did you quit the gym?",
        "I love my gym",
        "I stopped by the store, the milk is gone",  # not said at the start, nor by the user
        "so i don't double book pls",  # "don't do" is not "don't double"
        "my sister's course ended",  # someone else's
        "我老公戒烟了",
        "明天休息，睡个懒觉，不跑了",  # a moment
        "no coffee for me tonight, I need to sleep",
        "算了，不用了。",
        "好吧 算了 不问了",
    ],
)
def test_a_sentence_that_ends_nothing_is_not_a_retraction(sentence: str) -> None:
    assert retraction(sentence) is None


def test_a_retraction_ends_the_record_it_names_and_keeps_what_the_turn_says_now() -> None:
    u = User()
    u.say("I'm a member at Iron Works gym and I go 4x a week.", T0)
    u.say("I love hiking in the Alps.", T0 + M)
    u.say("I quit the gym, way too expensive. I just work out at home with a kettlebell now", T0 + 2 * M)
    live = u.values()
    assert not any("Iron Works" in v for v in live)
    assert any("hiking" in v for v in live) and any("kettlebell" in v for v in live)


def test_a_clause_naming_again_what_ended_goes_with_it() -> None:
    # "a blue Golf" only names the car again, and what follows from it goes too
    assert without_clauses("I've got a car, a blue Golf, so driving is fine for day trips", ["car"]) is None
    u = User()
    u.say("I've got a car, a blue Golf, so driving is fine for day trips", T0)
    u.say("I'm based in Bristol", T0 + M)
    u.say("we sold the car last week", T0 + 7 * 24 * 60 * M)
    assert not any("Golf" in v for v in u.values()) and "Bristol" in u.values()


def test_a_statement_in_the_users_words_loses_only_the_clause_naming_what_ended() -> None:
    u = User()
    u.say("I'm in a book club that meets every other Tuesday, and I read mostly sci-fi.", T0)
    u.say("I left the book club, too much drama honestly", T0 + M)
    stated = [v for attribute, values in u.live().items() if attribute.startswith("preference.stated") for v in values]
    assert "I read mostly sci-fi." in stated
    assert not any("book club that meets" in v for v in stated)
    assert without_clauses("I hate gyms.", ["gym"]) is None  # nothing would be left: the record ends whole


def test_a_retraction_naming_several_records_changes_none_of_them() -> None:
    u = User()
    u.say("I'm in a chess club on Mondays.", T0)
    u.say("I run a hiking club on weekends.", T0 + M)
    (t,) = u.say("I left the club.", T0 + 2 * M)[:1]
    assert t.outcome == Outcome.NOOP
    live = u.values()
    assert any("chess" in v for v in live) and any("hiking" in v for v in live)


# --- a change given only by its value ----------------------------------------------------------


@pytest.mark.parametrize(
    "sentence,value,old",
    [
        ("they moved it!! it's April 24 now, thank god", "April 24", None),
        ("we bumped it up to 90 minutes after the parent-teacher meeting", "90 minutes", None),
        ("shifted it, I train evenings now, 7pm, same days", "7pm", None),
        ("oh wait, Thursday not Wednesday for the dentist", "Thursday", "Wednesday"),
        ("ok actually go with 43, tried some on at the store", "43", None),
        ("我说错了，是周四", "周四", None),
    ],
)
def test_a_change_given_by_its_value_alone_is_read(sentence: str, value: str, old: str | None) -> None:
    found = restatement(sentence)
    assert found is not None and found.change
    assert (found.value, found.old_value) == (value, old)


@pytest.mark.parametrize(
    "sentence",
    [
        "also what's a decent icebreaker for 14 engineers",
        "I have 3 kids",
        "We landed at 6pm, it was fine",
        "我说错了",
        # what holds now, without a value clearly given as the new one
        "I prefer hybrid 2 days for now.",  # for a while, not a change
        "I prefer afternoon for now.",
        "VendorB at $150K is over budget now.",  # the amount is not what is now
        "All PTO over 3 days now requires VP approval",
        "new term so my son has to be up at 7 for school now, mornings are going to be chaos",  # a bare number
        "it's a Mazda CX-5 now, 2022, grey",  # a model and a year
    ],
)
def test_a_value_without_a_word_of_change_restates_nothing(sentence: str) -> None:
    assert restatement(sentence) is None


@pytest.mark.parametrize(
    "sentence,value",
    [
        ("cap is 18k now, no more", "18k"),
        ("landing 11:15pm now", "11:15pm"),
        ("$65 a head now, still including drinks.", "$65"),
        ("eng lead moved the friday freeze earlier, it kicks in at noon now", "noon"),
        ("lifting after work now, around 7pm", "7pm"),
        ("ugh they just called, it's moved to thursday the 12th, same time", "thursday the 12th"),
    ],
)
def test_a_value_said_as_what_holds_now_is_a_change(sentence: str, value: str) -> None:
    found = restatement(sentence)
    assert found is not None and found.change and found.value == value


def test_a_date_moved_replaces_the_day_of_the_month_in_place() -> None:
    u = User()
    u.say("dentist appt is tue the 10th at 3pm, remember that so i don't double book pls", T0)
    u.say("also whats a good floss for really tight teeth", T0 + M)
    u.say("ugh they just called, it's moved to thursday the 12th, same time", T0 + 2 * 24 * 60 * M)
    live = u.values()
    assert any("dentist appt is thursday the 12th at 3pm" in v for v in live), live
    assert not any("tue the 10th" in v for v in live)


def test_a_change_with_a_value_no_record_holds_replaces_the_one_record_clearly_of_it() -> None:
    # the earlier sentence was kept as a hobby, with no time in its value: the change still ends
    # it, and what the user said now is kept in its place
    u = User()
    u.say("I play in a pub quiz team with my old uni friends", T0)
    u.say("heads up, the pub quiz moved to 8pm", T0 + 2 * 24 * 60 * M)
    live = [r for r in u.view.records.values() if r.status in (Status.ACTIVE, Status.CANDIDATE)]
    assert [r.statement for r in live] == ["heads up, the pub quiz moved to 8pm"]


def test_a_day_said_every_week_in_chinese_is_a_day_a_correction_replaces() -> None:
    u = User()
    u.say("跟你说下 我们组周会定在每周三下午两点", T0)
    u.say("我说错了，是周四", T0 + 10 * M)
    assert value_kind("每周三下午两点") == "day"
    assert "周四" in u.values() and not any("周三" in v for v in u.values())


def test_a_statement_in_the_users_words_is_corrected_in_place_by_a_value_of_its_kind() -> None:
    u = User()
    u.say("Quick context for planning stuff: our team sync is every Wednesday at 10.", T0)
    u.say("I sleep about 7 hours a night.", T0 + M)
    u.say("No wait, make it Thursday, I mixed up the calendars.", T0 + 20 * M)
    live = u.values()
    assert any("every Thursday at 10" in v for v in live)
    assert not any("Wednesday" in v for v in live)
    assert any("7 hours" in v for v in live)  # another kind of value: untouched


def test_a_count_corrects_the_count_of_the_same_thing() -> None:
    u = User()
    u.say("Team rule for my squad: a pull request can't be bigger than 400 lines of diff.", T0)
    u.say("I walk my dog 3 times a day.", T0 + M)
    u.say("I'm overruling what I said yesterday: the PR limit is 250 lines, reviewers were drowning.", T0 + 24 * 60 * M)
    live = u.values()
    assert any("250 lines" in v for v in live) and not any("400 lines" in v for v in live)
    assert any("3 times a day" in v for v in live)


def test_a_value_of_its_kind_about_something_else_changes_nothing_said_long_ago() -> None:
    u = User()
    u.say("I sleep about 7 hours a night.", T0)
    u.say("Actually the concert starts at 9pm now.", T0 + 24 * 60 * M)
    live = u.values()
    assert any("7 hours" in v for v in live)


@pytest.mark.parametrize(
    "sentence,value",
    [
        ("heads up, the dentist moved my cleaning to mondays at 9 going forward", "mondays at 9"),
        ("the coach bumped practice up to 45 minutes since the season started", "45 minutes"),
        ("pushed it back to 6pm because of traffic", "6pm"),
    ],
)
def test_a_value_ends_before_words_of_time_or_reason(sentence: str, value: str) -> None:
    # ("going forward", "since …" are not what a count counts; a bare hour after a day is its time)
    found = restatement(sentence)
    assert found is not None and found.value == value


@pytest.mark.parametrize(
    "sentence", ["update: I'm driving a 2019 Outback now", "switched phones, I'm on a Pixel 8 now"]
)
def test_a_year_or_a_digit_inside_a_name_is_not_a_count(sentence: str) -> None:
    found = restatement(sentence)
    assert found is None or found.value not in ("2019", "8")


def test_a_routine_said_as_a_phrase_takes_a_new_day_in_place() -> None:
    u = User()
    u.say("I do yoga at the studio every tuesday and thursday evening after work", T0)
    u.say("update: the studio changed its schedule so I've switched to mondays and wednesdays", T0 + 2 * 60 * M)
    routines = u.live().get("profile.routine", [])
    assert any("mondays and wednesdays" in v and "yoga" in v for v in routines), u.live()
    assert not any("tuesday and thursday" in v for v in u.values())


def test_a_span_of_time_replaces_one_in_another_unit() -> None:
    from slotstream.memory.resolution import restated

    assert restated("I get my teeth cleaned every 6 months", "1 year") == "I get my teeth cleaned every 1 year"
    assert restated("I run 5 miles every 2 days", "3 miles") == "I run 3 miles every 2 days"


def test_a_day_of_the_month_and_a_number_after_chinese_are_replaced_whole() -> None:
    from slotstream.memory.resolution import restated

    assert restated("my rent is due on the 1st of each month", "5th") == "my rent is due on the 5th of each month"
    assert restated("每个月房租4500 押一付三", "4800") == "每个月房租4800 押一付三"
    assert (
        restated("dentist appt is tue the 10th at 3pm", "thursday the 12th")
        == "dentist appt is thursday the 12th at 3pm"
    )


def test_what_holds_now_replaces_the_earlier_record_closest_in_meaning() -> None:
    u = User()
    u.say("I commute by train every day, the 7:40 into the city.", T0)
    u.say("I love hiking in the Alps.", T0 + M)
    u.say("new job is remote so I work from my kitchen table now, no more commute", T0 + 3 * 24 * 60 * M)
    live = u.values()
    assert not any("7:40" in v for v in live), live
    assert any("kitchen table" in v for v in live) and any("Alps" in v for v in live)


@pytest.mark.parametrize(
    "sentence",
    [
        "I also play tennis on weekends now",  # it adds to what is stored
        "my brother moved to Denver",  # someone else
        "should I switch to a standing desk?",  # a question
    ],
)
def test_what_adds_to_memory_or_is_not_the_users_replaces_nothing(sentence: str) -> None:
    u = User()
    u.say("I play squash on weekends at the club.", T0)
    u.say("I live in Boston.", T0 + M)
    before = sorted(u.values())
    u.say(sentence, T0 + 3 * 24 * 60 * M)
    assert all(v in u.values() for v in before)


def test_one_of_several_things_said_as_what_holds_now_ends_the_earlier_one() -> None:
    u = User()
    u.say("I only read ebooks on my Kindle, paper books take up too much room in my tiny flat", T0)
    u.say("I also play the piano", T0 + M)
    u.say("ditched amazon's reader, I'm on a Kobo Libra now", T0 + 3 * 24 * 60 * M)
    devices = u.live().get("profile.devices", [])
    assert devices == ["Kobo Libra"], u.live()
    assert any("piano" in v for v in u.values())


def test_a_replacement_by_meaning_never_ends_a_record_of_grave_consequence() -> None:
    from slotstream.memory.resolution import GRAVE_BY_WORDS, resolve_replacement

    u = User()
    u.say("我乳糖不耐受 喝牛奶会拉肚子", T0)
    records = [r for r in u.view.records.values() if r.status == Status.ACTIVE]
    found = resolve_replacement(records, "现在奶茶照喝 牛奶也喝")
    assert not found.targets and found.why == GRAVE_BY_WORDS


def test_a_replacement_ends_nothing_when_no_record_is_clearly_closest() -> None:
    from slotstream.memory.resolution import resolve_replacement

    u = User()
    u.say("I drink oat milk in my coffee.", T0)
    u.say("I drink almond milk in my tea.", T0 + M)
    records = [r for r in u.view.records.values() if r.status == Status.ACTIVE]
    assert not resolve_replacement(records, "I drink soy milk now").targets


def test_a_replacement_is_validated_at_the_door() -> None:
    from slotstream.memory.errors import Rejected

    with pytest.raises(Rejected) as err:
        validate_op(OpIn(at=T0, op_id="x", command={"op": "retract", "tenant": "t", "user": "u", "replaced_by": " "}))
    assert err.value.reason.value == "missing_field"
    with pytest.raises(Rejected) as err:
        validate_op(
            OpIn(at=T0, op_id="y", command={"op": "retract", "tenant": "t", "user": "u", "replaced_by": "x" * 5000})
        )
    assert err.value.reason.value == "too_large"
    secret = "I use the key sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c now"
    with pytest.raises(Rejected) as err:
        validate_op(
            OpIn(at=T0, op_id="z", command={"op": "retract", "tenant": "t", "user": "u", "replaced_by": secret})
        )
    assert err.value.reason.value == "secret_value"


@pytest.mark.parametrize(
    "sentence,about",
    [
        ("scratch the gym note, don't keep that one", ["gym"]),
        ("can you delete the bit about my sister's wedding", ["sister's", "wedding"]),
        ("please don't remember the visa stuff", ["visa"]),
        ("hey can you drop the duolingo thing from your notes", ["duolingo"]),
        ("on second thought, don't keep the carpool thing", ["carpool"]),
        ("erase my landlord's name from what you know about me", ["landlord's", "name"]),
        # named as something said, or something the memory holds
        ("please forget the medication I mentioned last night", ["medication"]),
        ("scrap the company name you saved, I shouldn't have shared that", ["company", "name"]),
        ("ok forget what I said about toppings, that was a bit much", ["toppings"]),
        ("can you forget that I'm using duolingo", ["using", "duolingo"]),
        ("erase the audiobooks thing from memory pls", ["audiobooks"]),
        ("forget the flying thing please, it's embarrassing", ["flying"]),
    ],
)
def test_a_forget_names_a_thing_said_in_many_ways(sentence: str, about: list[str]) -> None:
    from slotstream.memory.extraction.forget import forget_command

    assert forget_command(sentence, T0) == [{"about": about}]


@pytest.mark.parametrize(
    "sentence",
    ["delete the file", "clear the cache", "drop the table users", "scratch that", "forget about the meeting"],
)
def test_a_request_to_act_on_a_thing_is_no_forget(sentence: str) -> None:
    from slotstream.memory.extraction.forget import forget_command

    assert forget_command(sentence, T0) is None


def test_a_forget_of_one_clause_keeps_the_rest_of_the_statement() -> None:
    u = User()
    u.say("fyi I'm training for a half marathon in June, and I've got a bad left ankle so no box jumps", T0)
    u.say("forget what I said about my ankle", T0 + M)
    live = u.values()
    assert any("half marathon" in v for v in live), live
    assert not any("ankle" in v or "box jumps" in v for v in live)
    # the forgotten version is gone, not kept as history
    kept = [r for r in u.view.records.values() if r.value is not None]
    assert not any("ankle" in str(r.value) or "ankle" in r.statement for r in kept)


def test_a_forget_named_only_in_a_records_quote_keeps_the_record_requoted() -> None:
    u = User()
    u.say("some context: I'm a pharmacist, I work weekends, and I'm going through a breakup so I'm a mess", T0)
    occupation = [r for r in u.view.records.values() if r.attribute == "profile.work.occupation"]
    assert occupation and "breakup" in occupation[0].statement
    u.say("please don't remember the breakup stuff", T0 + M)
    (now,) = [r for r in u.view.records.values() if r.attribute == "profile.work.occupation"]
    assert now.status == Status.ACTIVE and now.value == occupation[0].value
    assert "breakup" not in now.statement and all("breakup" not in (e.quote or "") for e in now.evidence)


def test_what_a_sentence_said_beside_a_retracted_record_outlives_it() -> None:
    u = User()
    u.say("I'm on blood thinners (warfarin) and I volunteer at the animal shelter on Sundays", T0)
    u.say("finished with the blood thinner course, doc signed me off", T0 + 24 * 60 * M)
    live = u.values()
    assert not any("warfarin" in v or "blood thinners" in v for v in live), live
    assert any("animal shelter" in v for v in live)


def test_a_retraction_finds_the_clause_by_meaning_when_no_word_is_shared() -> None:
    assert (
        without_clauses("We have a Subaru Outback and a tabby cat called Miso", ["car"]) == "a tabby cat called Miso."
    )


def test_a_retraction_never_ends_a_record_its_words_only_quote() -> None:
    from slotstream.memory.resolution import only_quotes

    u = User()
    u.say("My favourite band is Radiohead.", T0)
    (band,) = [r for r in u.view.records.values() if r.status == Status.ACTIVE]
    assert not only_quotes(band, ["favourite", "band"])  # what the sentence says is the record's value


@pytest.mark.parametrize(
    "sentence,about",
    [
        ("腰的事你别记了哈", ["腰"]),
        ("游泳那个你忘了吧 不用记", ["游泳"]),
        ("琴的牌子你忘了吧 没必要记", ["琴", "牌子"]),
        ("把B站那个忘掉吧", ["B站"]),
        ("刚才说的那个药你别记了", ["药"]),
        ("站会那条不用记 删了吧", ["站会"]),
        ("卡片那句当我没说 别存", ["卡片"]),
        ("工资那个你忘了吧 不太想让你记这个", ["工资"]),
        # someone else's: the words name it, never the user's own allergies
        ("我老公过敏那个你别记了 他不喜欢别人知道", ["老公过敏"]),
    ],
)
def test_a_chinese_forget_names_a_thing_said_without_my(sentence: str, about: list[str]) -> None:
    from slotstream.memory.extraction.forget import forget_command

    assert forget_command(sentence, T0) == [{"about": about}]


@pytest.mark.parametrize("sentence", ["文件删了吧", "把这个表删了", "我忘了带钥匙", "别忘了提醒我开会"])
def test_a_chinese_request_to_act_is_no_forget(sentence: str) -> None:
    from slotstream.memory.extraction.forget import forget_command

    assert forget_command(sentence, T0) is None


@pytest.mark.parametrize(
    "sentence,about",
    [
        ("奶茶戒了快一个月了 皮肤好多了", ("奶茶",)),
        ("女儿说不想学了 钢琴课已经退了", ("钢琴课",)),
        ("跟你说 我把烟戒了", ("烟",)),
    ],
)
def test_a_chinese_retraction_is_read_in_any_clause_typed_with_spaces(sentence: str, about: tuple[str, ...]) -> None:
    assert retraction(sentence) == about


def test_a_chinese_retraction_is_not_read_in_an_errand() -> None:
    assert retraction("今天我退了一个快递") is None


def test_a_chinese_statement_typed_with_spaces_loses_only_the_clause_forgotten() -> None:
    assert without_clauses("我一般周二周四晚上去游泳 然后我对芒果过敏", ["游泳"]) == "然后我对芒果过敏。"


@pytest.mark.parametrize(
    "sentence",
    [
        "we're thinking about moving the retro to Thursday",
        "the board might raise the cap to 60, not decided",
        "领导说在考虑把例会挪到周三 还没定",
    ],
)
def test_a_change_only_thought_of_changes_nothing(sentence: str) -> None:
    u = User()
    u.say("Our retro is every Tuesday at 4pm, and the spending cap is 50.", T0)
    u.say("我们部门例会是每周一上午十点", T0 + M)
    before = sorted(u.values())
    assert restatement(sentence) is None
    u.say(sentence, T0 + 2 * M)
    assert all(v in u.values() for v in before)


def test_the_words_a_shape_needs_never_hide_a_restatement(monkeypatch: pytest.MonkeyPatch) -> None:
    # the look each shape gets from its own template only skips shapes that could not match: every
    # sentence of the corpora reads the same with the looks and without them
    import dataclasses
    import json as _json

    from slotstream.eval.corpus import corpus_path
    from slotstream.memory.extraction import restatement as module

    texts = [
        turn["text"] if isinstance(turn, dict) else turn
        for path in sorted(corpus_path("open_language_dev").parent.glob("*/*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
        for row in [_json.loads(line)]
        for turn in [*row.get("turns", []), row.get("statement") or row.get("text") or ""]
    ]
    looked = [(module.restatement(t), module.retraction(t)) for t in texts]
    english, chinese = module._languages()

    def unlooked(lang: Any) -> Any:
        shapes = tuple((shape, change, None) for shape, change, _ in lang.shapes)
        everything = re.compile("")
        return dataclasses.replace(
            lang, shapes=shapes, retractions=dataclasses.replace(lang.retractions, look=everything)
        )

    plain = (unlooked(english), unlooked(chinese))  # (the same objects on every call: compared by identity)
    monkeypatch.setattr(module, "_languages", lambda: plain)
    assert [(module.restatement(t), module.retraction(t)) for t in texts] == looked
    assert sum(1 for r, _ in looked if r is not None) > 20


# --- news of a change: a turn that only tells the user's news, a change among it ---------------


@pytest.mark.parametrize(
    "earlier,news,gone",
    [
        ("I drive a 2015 Honda Civic, just so you know for car stuff", "sold the car last week, feels weird", "Civic"),
        (
            "I drive a 2015 Honda Civic, just so you know for car stuff",
            "traded it in this morning!! it's a Mazda CX-5 now, 2022, grey",
            "Civic",
        ),
        ("我开的车是本田思域", "刚提了新车 现在开理想L7了 旧的置换掉了", "思域"),
    ],
)
def test_news_of_a_change_replaces_the_record_it_tells_of_and_is_kept_in_its_place(
    earlier: str, news: str, gone: str
) -> None:
    u = User()
    u.say(earlier, T0)
    u.say("what's a good podcast about history?", T0 + M)
    [t] = u.say(news, T0 + 2 * M)
    live = u.values()
    assert not any(gone in v for v in live), live
    assert news in live  # in the user's words, where the ended record was
    kept = next(r for r in u.view.records.values() if r.value == news)
    assert kept.scope == "global" and kept.evidence[0].source_id and kept.evidence[0].quote == news
    assert t.outcome != Outcome.NOOP


@pytest.mark.parametrize(
    "news",
    [
        "sold the car last week, feels weird",
        "sold my bike last week, feels weird",
        "上个月把车卖了 挺舍不得的",
    ],
)
def test_news_of_a_change_with_nothing_to_replace_leaves_no_memory(news: str) -> None:
    u = User()
    u.say("I'm vegetarian.", T0)
    before = sorted(u.values())
    u.say(news, T0 + M)
    assert sorted(u.values()) == before


@pytest.mark.parametrize(
    ("earlier", "news", "now", "gone"),
    [
        ("我住在杭州滨江", "上个月搬家了 现在住苏州园区", "苏州园区", "杭州滨江"),
        ("I live in Leeds btw", "big news, we moved! we're in Bristol now, got the keys yesterday", "Bristol", "Leeds"),
        ("I live in Portland", "moved last weekend!! I'm in Denver now, still unpacking lol", "Denver", "Portland"),
        ("我住杭州西湖区 以后推荐啥的按这个来", "搬家了哈 现在在上海浦东 累死我了", "上海浦东", "杭州西湖区"),
    ],
)
def test_news_of_a_move_naming_the_new_home_is_the_home_city(earlier: str, news: str, now: str, gone: str) -> None:
    """Where the user lives now, said beside the move or in the next sentence, whatever was stored."""
    u = User()
    u.say(earlier, T0)
    u.say(news, T0 + M)
    assert now in u.values() and gone not in u.values(), u.values()


def test_news_of_a_change_replaces_nothing_when_two_records_of_its_area_could_be_meant() -> None:
    u = User()
    u.say("I take metformin every morning.", T0)
    u.say("I'm allergic to penicillin.", T0 + M)
    before = sorted(u.values())
    u.say("doc took me off the pills last week 🎉", T0 + 2 * M)
    assert all(v in u.values() for v in before)


@pytest.mark.parametrize(
    "turn,told",
    [
        ("moved last weekend!! I'm in Denver now, still unpacking lol", True),
        ("big news, we moved! we're in Bristol now, got the keys yesterday", True),
        ("上个月搬家了 现在住苏州园区", True),
        ("my wife switched to decaf", False),  # someone else's news
        ("should I move it to thursday?", False),  # a question
        ("I moved the file, can you check it now?", False),  # a request beside it
        ("thinking about moving to Denver next year", False),  # only thought of
        ("had a great weekend at the lake", False),  # news, no change told
    ],
)
def test_a_turn_is_news_of_a_change_only_when_all_of_it_is_the_users_news(turn: str, told: bool) -> None:
    from slotstream.memory.extraction.open_statement import news_of_change
    from slotstream.memory.extraction.restatement import may_tell_a_change

    # (as the extractor asks: the quick look for a word of change first)
    assert (may_tell_a_change(turn) and news_of_change(turn) == turn) is told


def test_news_of_a_change_is_proposed_as_a_replacement_kept_only_where_it_replaces() -> None:
    turn = Turn(tenant="t", user="u", session="s1", text="sold the car last week, feels weird", at=T0, turn_id="t9")
    [proposal] = RuleExtractor().extract(turn).items
    assert proposal.record is None and proposal.command is not None
    assert proposal.command["replaced_by"] == turn.text and proposal.command["said_in"]["source_id"]


def test_where_a_replacement_was_said_needs_the_replacement() -> None:
    from slotstream.memory.errors import Rejected

    body = {"op": "retract", "tenant": "t", "user": "u", "match": {"attribute": "profile.car"}}
    with pytest.raises(Rejected) as err:
        validate_op(OpIn(at=T0, op_id="x", command={**body, "said_in": {"source_id": "turn-1"}}))
    assert err.value.reason.value == "missing_field"


@pytest.mark.parametrize(
    "said_in,reason",
    [
        ({"source_id": "t" * 5000}, "too_large"),  # an oversized source id
        ({"source_id": "turn-1", "quote": "q" * 50_000}, "too_large"),  # an oversized quote
        ({"source_id": "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"}, "secret_value"),  # a secret as the id
        ({"source_type": "telepathy"}, None),  # not a source type: refused by the schema
    ],
)
def test_where_a_replacement_was_said_is_validated_like_any_evidence(
    said_in: dict[str, Any], reason: str | None
) -> None:
    from slotstream.memory.errors import Rejected

    body = {"op": "retract", "tenant": "t", "user": "u", "replaced_by": "sold the car last week", "said_in": said_in}
    with pytest.raises(Rejected) as err:
        validate_op(OpIn(at=T0, op_id="x", command=body))
    if reason is not None:
        assert err.value.reason.value == reason


def test_a_forget_says_nowhere_it_was_said() -> None:
    from slotstream.memory.errors import Rejected

    body = {"op": "forget", "tenant": "t", "user": "u", "about": ["car"], "said_in": {"source_id": "turn-1"}}
    with pytest.raises(Rejected):
        validate_op(OpIn(at=T0, op_id="x", command=body))
