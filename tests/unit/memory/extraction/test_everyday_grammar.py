"""The everyday grammar (memory/extraction/everyday.py): possessives, negation and corrections,
forget, "this time", other people, one-off past events, special categories; English and Chinese."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from slotstream.memory.extraction import REFUSED_SECRET, Extraction, RuleExtractor, Turn

AT = datetime(2026, 9, 23, 10, 0, tzinfo=UTC)


def extract(text: str, role: str = "user", session: str | None = "s1") -> Extraction:
    turn = Turn(tenant="t", user="u", session=session, project="p1", role=role, text=text, at=AT)
    return RuleExtractor().extract(turn)


def records(text: str, **kw: Any) -> list[tuple[str, Any]]:
    return [(p.record["attribute"], p.record["value"]) for p in extract(text, **kw).items if p.record is not None]


def commands(text: str) -> list[dict[str, Any]]:
    return [p.command for p in extract(text).items if p.command is not None]


@pytest.mark.parametrize(
    "text,expected",
    [
        # possessives and names
        ("My wife Ana is a nurse.", ("profile.family", "wife: Ana")),
        ("My wife's name is Ana.", ("profile.family", "wife: Ana")),
        ("I have two kids, Tom and Lily.", ("profile.family", "two kids: Tom and Lily")),
        ("我老婆小美。", ("profile.family", "老婆: 小美")),
        ("我妈妈叫王芳。", ("profile.family", "妈妈: 王芳")),
        ("I have a dog called Max.", ("profile.pets", "dog: Max")),
        ("My cat's name is Luna.", ("profile.pets", "cat: Luna")),
        ("我家有只猫叫咪咪。", ("profile.pets", "猫: 咪咪")),
        ("我养了一只金毛，叫旺财。", ("profile.pets", "金毛: 旺财")),
        # closed vocabularies: canonical English values
        ("I'm vegetarian.", ("profile.diet", "vegetarian")),
        ("我吃素。", ("profile.diet", "vegetarian")),
        ("我现在是纯素。", ("profile.diet", "vegan")),
        ("I don't eat pork.", ("profile.diet", "no pork")),
        ("我不吃猪肉。", ("profile.diet", "no pork")),
        ("I only eat halal meat.", ("profile.diet.religious", "halal")),
        ("我只吃清真的。", ("profile.diet.religious", "halal")),
        ("I'm allergic to peanuts.", ("profile.allergies", "peanuts")),
        # the user still the subject after other clauses
        ("I'm vegetarian, have been for 10 years, and allergic to kiwi", ("profile.allergies", "kiwi")),
        ("我对海鲜过敏。", ("profile.allergies", "海鲜")),
        ("I'm lactose intolerant.", ("profile.intolerances", "lactose intolerance")),
        # likes and dislikes, and where they route
        ("I love Thai food.", ("profile.likes", "Thai food")),
        ("I hate cilantro.", ("profile.dislikes", "cilantro")),
        ("我讨厌香菜。", ("profile.dislikes", "香菜")),
        ("我喜欢打羽毛球。", ("profile.hobbies", "打羽毛球")),
        ("I support Arsenal.", ("profile.sports_teams", "Arsenal")),
        # work, travel, budget, dates, languages spoken
        ("I'm a nurse.", ("profile.work.occupation", "nurse")),
        # what is taught, not where, when or to whom
        ("I teach piano on weekends.", ("profile.work.occupation", "piano teacher")),
        ("I teach yoga at a studio downtown.", ("profile.work.occupation", "yoga teacher")),
        ("My manager is Priya.", ("profile.work.manager", "Priya")),
        ("我在字节跳动工作。", ("profile.work.employer", "字节跳动")),
        ("I always prefer a window seat.", ("preference.travel.seat", "window seat")),
        ("Keep hotels under $150 a night.", ("preference.budget.hotel", "under $150 a night")),
        ("My birthday is March 5th.", ("profile.dates", "My birthday: March 5th")),
        ("I speak fluent Spanish.", ("profile.languages", "Spanish (fluent)")),
        ("My native language is Cantonese.", ("profile.languages", "Cantonese (native)")),
    ],
)
def test_statements_give_the_attribute_and_value(text: str, expected: tuple[str, Any]) -> None:
    assert expected in records(text)


def test_a_spoken_language_is_not_the_answer_language() -> None:
    for text in ("My native language is Cantonese.", "I speak fluent Spanish.", "我的母语是粤语。"):
        attrs = [a for a, _ in records(text)]
        assert "profile.languages" in attrs and "preference.language" not in attrs


@pytest.mark.parametrize(
    "text,attribute,value",
    [
        ("I'm not vegetarian any more.", "profile.diet", "vegetarian"),
        ("I'm no longer vegan.", "profile.diet", "vegan"),
        ("I eat meat again now.", "profile.diet", "vegetarian"),
        ("我现在吃肉了。", "profile.diet", "vegetarian"),
        ("我不吃素了。", "profile.diet", "vegetarian"),
        ("I eat pork now.", "profile.diet", "no pork"),
        ("我现在吃猪肉了。", "profile.diet", "no pork"),
        ("I don't like jazz anymore.", "profile.likes", "jazz"),
        ("我不喜欢爵士乐了。", "profile.likes", "爵士乐"),
    ],
)
def test_a_negated_value_of_a_multi_valued_attribute_is_retracted(text: str, attribute: str, value: str) -> None:
    out = extract(text)
    assert [p.record for p in out.items if p.record is not None] == []
    assert commands(text) == [
        {"op": "retract", "tenant": "t", "user": "u", "match": {"attribute": attribute, "value": value}}
    ]


def test_the_retracted_value_equals_the_stored_one() -> None:
    stored = records("我是素食者。")
    assert stored == [("profile.diet", "vegetarian")]
    assert commands("I'm not vegetarian any more.")[0]["match"]["value"] == stored[0][1]


def test_a_change_of_a_single_valued_work_attribute_links_to_the_current_record() -> None:
    [p] = [p for p in extract("I just started a new job at Spotify.").items if p.record is not None]
    assert p.record is not None and p.record["attribute"] == "profile.work.employer"
    assert p.record["value"] == "Spotify" and p.link_current


@pytest.mark.parametrize(
    "text,match",
    [
        ("Forget that I'm vegetarian.", {"attribute": "profile.diet", "value": "vegetarian"}),
        ("别记我养狗的事了。", {"attribute": "profile.pets"}),
        ("Forget my pets.", {"attribute": "profile.pets", "family": True}),
    ],
)
def test_forget_names_the_everyday_attribute(text: str, match: dict[str, Any]) -> None:
    assert commands(text) == [{"op": "forget", "tenant": "t", "user": "u", "match": match}]


def test_this_time_scopes_a_preference_to_the_session() -> None:
    for text in ("This time I want a window seat.", "这次我想坐靠窗。"):
        [p] = extract(text).items
        assert p.record is not None and p.record["scope"] == "session:s1"
        assert p.record["attribute"] == "preference.travel.seat"
    [p] = extract("I always prefer a window seat.").items
    assert p.record is not None and p.record["scope"] == "global"
    out = extract("This time I want a window seat.", session=None)
    assert out.items == [] and out.refused == ["temporary_without_session"]


@pytest.mark.parametrize(
    "text",
    [
        # other people
        "My friend has a dog called Max.",
        "My sister is allergic to peanuts.",
        "I'm fine, and my son is allergic to peanuts.",
        "我妹妹对花生过敏。",
        "我朋友养了一只猫。",
        "我朋友说她老公不吃葱姜蒜，做饭好麻烦。",
        "My friend supports Chelsea and won't stop gloating.",
        "我同事是色盲。",
        # one-off past events
        "I had pizza yesterday.",
        "我昨天去了健身房。",
        "I worked from home today because of the strike.",
        "今天早上跑了个步，腿好酸。",
        # hypotheticals and questions
        "If I were vegan, what would I eat?",
        "要是我养猫，需要买些什么？",
        "Which is better on a plane, window or aisle?",
        "海鲜过敏的人多吗？",
        # requests
        "帮我列一个周末露营的装备清单。",
        "I don't love the second draft, it's too wordy.",
    ],
)
def test_nothing_lasting_about_the_user(text: str) -> None:
    assert extract(text).items == []


def test_assistant_turns_and_secrets_give_nothing() -> None:
    assert extract("I'm vegetarian and allergic to peanuts.", role="assistant").items == []
    out = extract("My password is hunter2 and I'm vegan.")
    assert out.items == [] and out.refused == [REFUSED_SECRET]


def test_a_setting_one_likes_is_not_an_accessibility_need_unless_the_user_says_it_is() -> None:
    assert records("I also like dark mode in the editor.") == [("profile.likes", "dark mode in the editor")]
    assert [a for a, _ in records("I need dark mode because bright screens hurt my eyes.")] == ["profile.accessibility"]


def test_a_language_one_codes_in_is_no_pet_and_a_skill_is_what_is_taught() -> None:
    assert ("profile.pets", "Python") not in records("I have been coding in Python for 10 years.")
    assert ("profile.pets", "python: Kaa") in records("I have a python called Kaa.")
    assert ("profile.expertise.piano", "expert") in records("I teach piano on weekends.")
