"""The prefilter (memory/extraction/prefilter.py) never changes an extraction.

The extractor with the prefilter off tries every family and every pattern everywhere; with it on
(the default) it skips what the prefilter shows cannot match, and drops a turn no family can use
before splitting it. The two must give the same extraction for every line of every corpus (the
families' statements, the requests, the ordinary chat), every turn of every turn scenario, the
benchmark's turns, and random concatenations of corpus lines. Each family's trigger is checked on
its own too (a family that fires on a sentence has its trigger there), and so is the literal
analysis (what it says a match needs is in every match)."""

from __future__ import annotations

import json
import random
import re
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

import pytest

from slotstream.bench_pipeline import _turn as bench_turn
from slotstream.memory.extraction import RuleExtractor, Turn, prefilter
from slotstream.memory.extraction.analyze import GOAL_REQUIRES, RULE_FAMILIES
from slotstream.memory.extraction.detail import _OVER
from slotstream.memory.extraction.everyday import EVERYDAY_REQUIRES, everyday_hits
from slotstream.memory.extraction.extractor import _CLAUSES, TURN_TRIGGERS, turn_may_hold
from slotstream.memory.extraction.forget import FORGET_REQUIRES, forget_command
from slotstream.memory.extraction.goal import GOAL
from slotstream.memory.extraction.prefilter import JOINTS, Trigger, required_literals
from slotstream.memory.extraction.retract import RETRACT_REQUIRES, retract_match

ROOT = Path(__file__).resolve().parents[4]
CORPORA = ("phrasings", "phrasings_fresh", "everyday", "everyday_fresh")
AT = datetime(2026, 9, 23, 10, 0, tzinfo=UTC)  # a Wednesday, as in the corpus evaluation

ON = RuleExtractor()
OFF = RuleExtractor(prefilter=False)


def read_lines(path: Path) -> list[str]:
    return [json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@cache
def corpus_lines() -> tuple[str, ...]:
    return tuple(
        line
        for name in CORPORA
        for path in sorted((ROOT / "tests" / "corpus" / name).glob("*.jsonl"))
        for line in read_lines(path)
    )


@cache
def scenario_turns() -> tuple[Turn, ...]:
    turns: list[Turn] = []
    for path in sorted((ROOT / "tests" / "scenarios").glob("turns_*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            obj = json.loads(line)
            if "turn" in obj:
                turns.append(Turn.model_validate({**obj["turn"], "at": obj["at"], "turn_id": f"{path.stem}-{number}"}))
    return tuple(turns)


def bench_mix(count: int) -> list[Turn]:
    rng = random.Random(5)  # the seed of `slotstream bench pipeline`'s extraction figure
    return [
        Turn.model_validate({**fields, "at": at, "turn_id": f"x{number}"})
        for number, (at, fields) in enumerate(bench_turn(rng, number, 1000) for number in range(count))
    ]


def user_turn(text: str, *, session: str | None = "s1", project: str | None = None) -> Turn:
    return Turn(tenant="t1", user="u1", session=session, project=project, text=text, at=AT, turn_id="t-1")


def assert_same(turns: list[Turn]) -> None:
    for turn in turns:
        on, off = ON.extract(turn), OFF.extract(turn)
        assert on.model_dump() == off.model_dump(), turn.text


# --- the same extraction ---------------------------------------------------------------------------


def test_the_corpora_and_scenarios_are_all_there() -> None:
    # every line of the four corpora: statements, requests and ordinary chat alike
    assert len(corpus_lines()) > 4500
    assert len(scenario_turns()) > 200


@pytest.mark.parametrize("corpus", CORPORA)
def test_every_corpus_line_gives_the_same_extraction(corpus: str) -> None:
    for path in sorted((ROOT / "tests" / "corpus" / corpus).glob("*.jsonl")):
        lines = read_lines(path)
        assert lines
        # with and without a session and a project: the scope rules read those after the families
        assert_same([user_turn(text) for text in lines])
        assert_same([user_turn(text, session=None, project="p1") for text in lines[::7]])


def test_every_scenario_turn_gives_the_same_extraction() -> None:
    assert_same(list(scenario_turns()))


def test_the_benchmark_turns_give_the_same_extraction() -> None:
    assert_same(bench_mix(600))


def test_random_concatenations_of_corpus_lines_give_the_same_extraction() -> None:
    # several statements in one turn, clauses glued across sentences, other people's clauses cut
    # out, one sentence's words next to another's: whatever the sentence splitter makes of it
    rng = random.Random(17)
    lines = corpus_lines()
    turns: list[Turn] = []
    for _ in range(400):
        parts = [rng.choice(lines) for _ in range(rng.randint(2, 4))]
        glue = rng.choice([" ", "", ", ", "; ", "，", "\n", " but my sister ", " so ", ": "])
        text = glue.join(part.rstrip(".。!！?？") if rng.random() < 0.3 else part for part in parts)
        turns.append(user_turn(text[:2000]))
    assert_same(turns)


def test_turns_with_secrets_and_odd_characters_give_the_same_extraction() -> None:
    texts = [
        "my api key is sk-live-abcdefghijklmnopqrstuvwx1234 and the weather is nice",
        "password: hunter2hunter2. what time is it?",
        "İ live in İstanbul.",  # "İ" equals "i" to the engine: the text is looked at as holding everything
        "I ſpeak fluent Spaniſh.",
        "Ich wohne in München, ΣΟΦΙΑ.",
        "𝐈 𝐥𝐢𝐯𝐞 𝐢𝐧 𝐁𝐞𝐫𝐥𝐢𝐧.",
        "MY TIMEZONE IS UTC+8. I LIVE IN BERLIN.",
        "我住在臺北，以後請用繁體中文回答。",
        "",
        "   ",
    ]
    assert_same([user_turn(text) for text in texts])


# --- each family on its own --------------------------------------------------------------------------


def sentences() -> list[str]:
    # each corpus line as the families read a sentence: no trailing stop
    return [line.rstrip("。！？；!?;.… ") for line in corpus_lines()]


def test_a_rule_family_that_fires_has_its_trigger_in_the_sentence() -> None:
    for text in sentences():
        seen = prefilter.seen(text)
        with prefilter.disabled():
            fired = [(requires, family(text, AT)) for family, requires in RULE_FAMILIES]
            fired.append((GOAL_REQUIRES, GOAL.hits(text, AT)))
            fired.append((FORGET_REQUIRES, forget_command(text, AT)))
            fired.append((RETRACT_REQUIRES, retract_match(text)))
        for requires, out in fired:
            if out:
                assert requires.may_fire(seen), text
                assert requires.may_fire(prefilter.seen(text), jointed=True), text


def test_everyday_families_give_the_same_hits() -> None:
    for text in sentences():
        # the user's clauses and the whole sentence: a relative's name is read from the whole one
        with prefilter.disabled():
            expected = everyday_hits(text, text, AT)
        assert everyday_hits(text, text, AT) == expected, text


def test_every_everyday_trigger_is_one_of_the_turns_triggers() -> None:
    # a trigger the turn-level look does not know about would let it drop a turn that family reads
    import slotstream.memory.extraction.everyday as everyday

    declared = {id(value) for value in vars(everyday).values() if isinstance(value, Trigger)}
    assert declared == {id(trigger) for trigger in EVERYDAY_REQUIRES}
    assert all(any(trigger is known for known in TURN_TRIGGERS) for trigger in EVERYDAY_REQUIRES)


def test_a_turn_the_prefilter_drops_gives_nothing() -> None:
    # what the extractor drops before splitting the turn: chit-chat that names nothing to keep
    assert not turn_may_hold("Thanks, that helps a lot!")
    assert not turn_may_hold("哈哈，好的")
    assert turn_may_hold("I live in Berlin.")
    dropped = [line for line in corpus_lines() if not turn_may_hold(line)]
    assert dropped  # some ordinary chat is dropped outright
    for text in dropped:
        assert OFF.extract(user_turn(text)).items == [], text


# --- the joints the extractor and the families glue text at ------------------------------------------


def test_the_extractor_glues_clauses_where_the_prefilter_expects_a_joint() -> None:
    # `_about_user` keeps the separator before each clause it keeps: every separator starts with a
    # joint mark or with whitespace before a separator word
    for text in corpus_lines():
        for separator in _CLAUSES.finditer(text):
            joint = separator.group(0)
            assert joint[0] in JOINTS or prefilter._JOINT_WORDS.match(joint.lower()), (joint, text)


def test_detail_glues_the_sentence_where_the_prefilter_expects_a_joint() -> None:
    # "I prefer long answers over quick summaries, …": what follows the cut starts with a joint mark
    for text in corpus_lines():
        for cut in _OVER.finditer(text):
            assert cut.end() == len(text) or text[cut.end()] in JOINTS, text


def test_a_glued_text_still_shows_what_its_pieces_hold() -> None:
    # "A, B; C" without "B" reads "A; C": a literal across the joint is looked for up to the joint
    assert prefilter._jointed(frozenset({"me; also"})) == frozenset({"me"})
    # whitespace is a joint only before a separator word (" but ", " and so ", " so ")
    assert prefilter._jointed(frozenset({" ships", "for now"})) == frozenset({" ships", "for now"})
    assert prefilter._jointed(frozenset({"fine but ok"})) == frozenset({"fine"})


# --- the literal analysis ----------------------------------------------------------------------------


def _held(options: tuple[tuple[frozenset[str], ...], ...], text: str) -> bool:
    """Whether `text`, as the index reads it, has a string of each set of one of `options`."""
    return any(
        all(any(prefilter.literal_in(literal, text) for literal in clause) for clause in option) for option in options
    )


def test_every_match_holds_what_the_analysis_says_it_needs() -> None:
    # every indexed pattern, on every other corpus line and every scenario turn
    prefilter.build()
    texts = list(corpus_lines()[::2]) + [turn.text for turn in scenario_turns()]
    checked = 0
    for pattern in prefilter._index().patterns:
        options = required_literals(pattern)
        for text in texts:
            if pattern.search(text):
                checked += 1
                assert _held(options, text), (pattern.pattern[:80], text)
    assert checked > 5000


def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.VERBOSE if "\\ " in pattern else 0)


@pytest.mark.parametrize(
    "pattern,text",
    [
        (r"\bI\s+live\s+in\b", "I live in Oslo"),
        (r"(?i)colou?r", "COLOR"),
        (r"this\ time|just\ once", "just once more"),
        (r"(?:a|b)c", "xbc"),
        (r"x(?=yz)", "xyz"),
        (r"x(?!yz)q?", "x"),
        (r"[abc]d", "cd"),
        (r"\w+ing", "anything at all"),
        (r"(a)?(?(1)b|c)", "c"),
        (r"(?i:ab)(?-i:C)", "ABC"),
        (r"(?<![A-Za-z])ET\b", "9am ET"),
        (r"\b(?:at|by)\s+\d", "by 5"),
    ],
)
def test_a_match_holds_what_the_analysis_says_it_needs(pattern: str, text: str) -> None:
    compiled = _compiled(pattern)
    assert compiled.search(text)
    assert _held(required_literals(compiled), text)


@pytest.mark.parametrize(
    "pattern,text",
    [
        (r"\bI\s+live\s+in\b", "I lived near Oslo"),
        (r"(?i)colou?r", "colr"),
        (r"(?:a|b)c", "xdc"),
        (r"x(?=yz)", "xy"),
        (r"[abc]d", "ed"),
        (r"\w+ing", "no"),
        (r"\bwhen\s+I\s+travel\b|\bon\s+holiday\b", "when I go on a trip"),
        (r"\bhe\b", "the weather"),  # a word, not three letters anywhere
        (r"(?<![A-Za-z])ET\b", "let me see the details"),  # as written: "ET", not "et"
        (r"\b(?:at|by)\s+\d", "that is 5"),
    ],
)
def test_a_text_without_a_needed_literal_is_seen_not_to_match(pattern: str, text: str) -> None:
    compiled = _compiled(pattern)
    assert not compiled.search(text)
    assert not _held(required_literals(compiled), text)


def test_a_pattern_is_cut_into_its_alternatives() -> None:
    cut = prefilter._cut
    assert cut(r"a|(b|c)|[|]|\||d(?#x|y)e", False) == ["a", "(b)", "(c)", "[|]", r"\|", "d(?#x|y)e"]
    assert cut("a # x|y\n|b", True) == ["a # x|y\n", "b"]
    # a group's alternatives, and those of a group in it, with what is around them
    assert cut(r"\b(?:a|b(?:c|d))\b", False) == [r"\b(?:a)\b", r"\b(?:b(?:c))\b", r"\b(?:b(?:d))\b"]
    assert cut(r"(?i:\b(?:short|long)\b)|简短", False) == [r"(?i:\b(?:short)\b)", r"(?i:\b(?:long)\b)", "简短"]
    # not a repeated group, an atomic one or a look-around: each is not the same as its alternatives
    for whole in (r"x(?:a|b)+y", r"x(?:a|b) {2}y", r"(?=a|b)c", r"(?>a|b)c", r"(?(1)a|b)"):
        assert cut(whole, "{2}" in whole) == [whole]
    assert len(cut("|".join("abcdefghij" * 40), False)) == 1  # past the budget: whole
    # a pattern whose alternatives refer to each other's groups stays whole
    assert prefilter._alternatives_of(re.compile(r"(a)|\1b")) is None


def test_a_tested_pattern_matches_where_one_of_its_alternatives_does() -> None:
    prefilter.build()
    texts = list(corpus_lines()[::5])
    for entry in prefilter._TESTED.values():
        if entry.sources is None:
            continue
        flags = entry.pattern.flags
        alternatives = [re.compile(source, flags) for source in entry.sources]
        for text in texts:
            assert bool(entry.pattern.search(text)) == any(alternative.search(text) for alternative in alternatives)
            for source, alternative in zip(entry.sources, alternatives, strict=True):
                # and a match of an alternative holds what the analysis of its source says it needs
                if alternative.search(text):
                    assert _held(prefilter._source_literals(source, flags), text), (source[:80], text)
