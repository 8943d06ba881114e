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
from collections.abc import Callable
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

import pytest

from slotstream.bench.pipeline import _turn as bench_turn
from slotstream.memory.extraction import RuleExtractor, Turn, prefilter
from slotstream.memory.extraction.decision import DECISION
from slotstream.memory.extraction.detail import _OVER, DETAIL
from slotstream.memory.extraction.everyday import EVERYDAY_REQUIRES, everyday_hits
from slotstream.memory.extraction.expertise import EXPERTISE
from slotstream.memory.extraction.extractor import _CLAUSES, TURN_TRIGGERS, turn_may_hold
from slotstream.memory.extraction.families import GOAL_REQUIRES, RULE_FAMILIES
from slotstream.memory.extraction.forget import FORGET_REQUIRES, forget_command
from slotstream.memory.extraction.goal import GOAL
from slotstream.memory.extraction.language import LANGUAGE
from slotstream.memory.extraction.open_statement import STATEMENT_RULE
from slotstream.memory.extraction.prefilter import JOINTS, Trigger, required_literals
from slotstream.memory.extraction.priority import PRIORITY_REQUIRES, priority_hits
from slotstream.memory.extraction.retract import RETRACT_REQUIRES, retract_match
from slotstream.memory.extraction.routine import ROUTINE_EN_REQUIRES, routine_en
from slotstream.memory.extraction.style import ORDER_REQUIRES, STYLE_REQUIRES, order_hits, style_hits
from slotstream.memory.extraction.timezone import TIMEZONE

ROOT = Path(__file__).resolve().parents[4]
CORPORA_DIR = ROOT / "slotstream" / "eval" / "corpora"
CORPORA = ("phrasings", "phrasings_fresh", "everyday", "everyday_fresh")
AT = datetime(2026, 9, 23, 10, 0, tzinfo=UTC)  # a Wednesday, as in the corpus evaluation

ON = RuleExtractor()
OFF = RuleExtractor(prefilter=False)


def read_lines(path: Path) -> list[str]:
    return [json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@cache
def corpus_lines() -> tuple[str, ...]:
    return tuple(
        line for name in CORPORA for path in sorted((CORPORA_DIR / name).glob("*.jsonl")) for line in read_lines(path)
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
    for path in sorted((CORPORA_DIR / corpus).glob("*.jsonl")):
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


# Sentences a family reads through its cue, its fallback or a second way that the corpora seldom
# reach; a family's look names what each of these needs, so each is checked here by name.
THROUGH_CUES = [
    ("decision", "Final call, Postgres for the database"),  # the marker fallback, in English
    ("decision", "After a long debate, Postgres for the database"),
    ("decision", "It's official: Kotlin for the mobile app"),
    ("decision", "Everyone agreed, Redis for the cache"),
    ("decision", "讨论完了，我们用GraphQL，不用REST"),  # and in Chinese
    ("detail", "Could you make your explanations more thorough"),  # the cue: a word for the answers
    ("detail", "Your answers are way too long"),  # "too …" about the answers
    ("detail", "Please make the replies crisp"),
    ("detail", "Your replies are too wordy"),  # "too …" alone, no cue word
    ("language", "Can we switch the conversation to Korean"),  # the cue
    ("language", "French is the language I prefer"),
    ("timezone", "Schedule everything in CET"),  # the cue: the user's own time
    ("timezone", "We stick with IST"),
    ("timezone", "安排会议都以东京时间为准"),
    ("priority", "This week I'm mostly on the billing migration"),
    ("priority", "Today is all about the Q3 report"),
    ("priority", "这周我主要忙发布的事"),
    ("priority", "Today, mainly the Q3 report"),  # the cue beside a time marker, no pattern
    ("priority", "本周全力投入新版本"),
    ("explanation_style", "Can you show me an example before the theory"),
    ("explanation_style", "请先给例子再讲原理"),
    ("explanation_style", "Can you open with a code sample"),  # the cue: a request, a kind first
    ("explanation_style", "Could you do examples, then theory"),
    ("order", "Can you put the answer first and the reasoning after"),
    ("order", "请先说结论"),
    ("expertise", "I'm fairly comfortable with Rust"),
    ("expertise", "I taught statistics for ten years"),
    ("retract", "我收回之前的估算"),  # a verb before the object
    ("retract", "我否决之前的方案"),  # a verb no predicate has
    ("retract", "无视我之前的结论"),
    ("retract", "Scratch what we decided about the launch date"),
    ("retract", "The estimate I gave you is no longer valid"),
    ("forget", "I don't want you to know my address"),  # not to keep, in a verb forget's own patterns lack
    ("forget", "I'd rather you didn't know where I live"),
    ("routine", "I run every morning before work"),  # how often, said by the user
    ("routine", "I usually walk the dog at 7"),
]


# each family by name: what it reads from a sentence, and what it cannot fire without
READERS: dict[str, tuple[Callable[[str], object], Trigger]] = {
    "decision": (lambda text: DECISION.hits(text, AT), DECISION.requires),
    "detail": (lambda text: DETAIL.hits(text, AT), DETAIL.requires),
    "language": (lambda text: LANGUAGE.hits(text, AT), LANGUAGE.requires),
    "timezone": (lambda text: TIMEZONE.hits(text, AT), TIMEZONE.requires),
    "priority": (lambda text: priority_hits(text, AT), PRIORITY_REQUIRES),
    "explanation_style": (lambda text: style_hits(text, AT), STYLE_REQUIRES),
    "order": (lambda text: order_hits(text, AT), ORDER_REQUIRES),
    "expertise": (lambda text: EXPERTISE.hits(text, AT), EXPERTISE.requires),
    "retract": (retract_match, RETRACT_REQUIRES),
    "routine": (routine_en, ROUTINE_EN_REQUIRES),
    "forget": (lambda text: forget_command(text, AT), FORGET_REQUIRES),
}


@pytest.mark.parametrize(("name", "text"), THROUGH_CUES)
def test_a_family_reading_a_sentence_through_its_cue_may_fire_on_it(name: str, text: str) -> None:
    read, requires = READERS[name]
    with prefilter.disabled():
        assert read(text), text  # the family does read it: the case is a real one
    assert requires.may_fire(prefilter.seen(text)), text
    assert requires.may_fire(prefilter.seen(text), jointed=True), text
    assert_same([user_turn(text), user_turn(text + "。" if re.search(r"[\u4e00-\u9fff]", text) else text + ".")])


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
        # (open statements, restatements and retractions in the user's words are read on every
        # turn: the prefilter is the rule families')
        made = OFF.extract(user_turn(text)).items
        described = [p for p in made if p.command is not None and p.command["op"] == "retract" and "about" in p.command]
        # (news of a change, a replacement kept only where it replaces, is read from every turn too)
        assert [p for p in made if p.rule not in (STATEMENT_RULE, "restate", "replace") and p not in described] == [], (
            text
        )


def test_most_ordinary_chat_is_dropped_before_it_is_split() -> None:
    # the families' looks name what a pattern needs, not only a trigger word: "write a short haiku"
    # has a detail word but nothing a detail pattern reads (64% of these lines are dropped; 29% when
    # a family's look was its trigger word alone)
    chat = [text for name in CORPORA for text in read_lines(CORPORA_DIR / name / "ordinary_chat.jsonl")]
    dropped = [text for text in chat if not turn_may_hold(text)]
    assert len(dropped) >= 0.6 * len(chat), f"{len(dropped)} of {len(chat)} dropped"


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


def _bits_literal_by_literal(text: str) -> int:
    """The clause bits of every literal `literal_in` sees in `text`, one literal at a time."""
    bits = 0
    for literal, literal_bits in prefilter._index().automaton.literals.items():
        if prefilter.literal_in(literal, text):
            bits |= literal_bits
    return bits


def test_the_automaton_finds_every_literal_a_search_one_by_one_finds() -> None:
    # ASCII texts (boundaries found on the way through the bytes) and others (marked beforehand),
    # capitals, literals looked for as written, boundaries at both ends and next to "_", digits,
    # punctuation, Chinese, Latin letters past ASCII, a lone surrogate
    rng = random.Random(3)
    lines = list(corpus_lines())
    texts = [
        *rng.sample(lines, 150),
        "",
        "_",
        "I'M VEGETARIAN, from now on",
        "snake_case words_and a_b I_m vegan",
        "ET is my timezone; details in UTC+8 at 9:30",
        "meet at 9 ET. get it? PyCharm on my iPad, not pycharm; GMT+1",
        "Ärger über naïve Café-Pläne, 我对花生过敏。",
        "以后都用中文回答我，thanks!",
        "x\ud800y from now on",
        "word" * 30,
        " \t\n 42 ",
    ]
    texts += [" ".join(rng.sample(lines, 3)) for _ in range(40)]
    texts += [text.upper() for text in texts[:50]] + [text.swapcase() for text in texts[50:100]]
    index = prefilter._index()
    for text in texts:
        assert index.automaton.scan(text) == _bits_literal_by_literal(text), text


def test_a_literal_looked_for_as_written_is_a_pattern_on_the_unmarked_text() -> None:
    mark = prefilter.BOUNDARY
    as_written = prefilter._as_written(f"{mark}ET{mark}")
    assert as_written is not None
    assert as_written.search("at 9 ET.") and not as_written.search("at 9 ETA") and not as_written.search("at 9 et")
    # marks a marked text never has: two in a row, one inside a word, none where a word ends
    assert prefilter._as_written(f"A{mark}{mark}.") is None
    assert prefilter._as_written(f"A{mark}B") is None
    assert prefilter._as_written("A.B") is None


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
