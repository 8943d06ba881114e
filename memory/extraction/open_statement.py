"""Open statements: what a user says about themself that should outlive the conversation, in any
phrasing — likes and dislikes, aversions, refusals, "only", habits, constraints, allergies and
conditions, values, circumstances, comparisons, conditions ("when I travel, ...") — kept verbatim.

A turn is read clause by clause (sentences cut at commas, semicolons, colons and dashes). A clause
is a *request* when it asks or instructs (a question, an imperative, "can you", "help me"); the
others are declarative. Consecutive declarative clauses make a span, and a span is kept when it
speaks of the user (a first-person word once other people's phrases are taken out, or a
subject-less stance: "Love spicy food", "Never on a weekday"), states something lasting (a word of
stance, habit or circumstance), and holds none of what rules a memory out: the task at hand ("I'm
getting this error"), a passing state ("today", "this time", "right now"). A turn with a
hypothetical or a role-play, or one that carries pasted material, keeps nothing. A false memory is
worse than a missed one: when in doubt, nothing is kept.

The word lists are data (`memory/data/statements.json`); this module only reads them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cache, lru_cache
from importlib import resources

from ..models import Kind
from ..semantics import area_model
from ..semantics.data import data_file
from ..semantics.topics import main_area
from .family import Hit
from .markers import LASTING, OTHERS
from .markers import SPEC as MARKERS
from .restatement import gives_a_value, tells_a_change, tells_of_a_change_told
from .text import alternation, day_end, month_end, to_int, week_end

_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "＇": "'"})
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
# where a sentence is cut into clauses: punctuation, and the words that join two clauses
# (a cut starts where a run of whitespace starts: tried inside the run as well, a long run of spaces
# would be read again from each of its characters)
_EN_CLAUSES = re.compile(
    r"(?:(?<!\s)\s+)?(?:,(?!\d)|:(?!\d)|[;()\u2014\u2013]|\s-\s|\.{2,}|…)\s*"
    r"|(?<!\s)\s+(?=(?:but|so|and then|because|cause)\s)",
    re.I,
)
_ZH_CLAUSES = re.compile(r"\s*[，,；;：:（）()—…、]+\s*|\s+")
_ZH_QUOTED = re.compile(r"[“「『\"][^”」』\"]{8,}[”」』\"]")
# someone named ("小王的目标", "老李说"), a completed one-off event ("吃了薯条", "做错了"), and the
# words that make an event a habit after all ("每天", "三年")
_ZH_CODE = re.compile(
    r"/[a-z]+/|[A-Za-z]+\.[A-Za-z]{2,4}\b|[a-z]+_[a-z]+|\b[a-z]{2,}[A-Z]\w+|=>|\[(?:ERROR|WARN|INFO)\]|(?<!\w)--[a-z]"
)
# words of stance that, with no subject, say only how often something happens ("一直返回#N/A")
_ZH_ONLY_ADVERBS = ("一直", "一般")
_ZH_NAMED = re.compile(r"^(?:小|老|阿)[\u4e00-\u9fff](?:的|说|觉得|让|问)")
_ZH_ONCE = re.compile(r"错了|坏了|丢了|忘了|搞定了|弄好了|解决了|修好了|(?:只|就|刚|刚刚)(?:吃|喝|买|去|做|看|点)了")
# ("喝牛奶就拉肚子"'s rule: "一喝就…"; "一周三顿": how often, not which day)
_ZH_HABIT = re.compile(
    r"每|一直|总是|经常|平时|一般|年|个月|多月|几年|好久|从来|以后|再也|一周|一[\u4e00-\u9fff]{1,3}就"
)
_ZH_QUESTION_END = re.compile(r"(?:吗|呢|么|？|\?)\s*[。.!！~～]*\s*$")
# (after 不管 / 无论 / 不论 a question word asks nothing: "不管什么场合一滴都不碰"; "还是…的" says
# "still", it offers no choice: "蛋和奶还是吃的")
_ZH_QUESTION_WORD = re.compile(
    r"(?<!不管)(?<!无论)(?<!不论)(?:怎么(?!都|也)|如何|多久|多长时间|什么时候|啥时候|多远|为什么|为啥|哪(?!怕)[\u4e00-\u9fff]|多少"
    r"|几点|是不是|有没有|能不能|要不要|该不该|行不行|什么(?!都|也))"
    r"|咋(?:回事|办|整|弄|样|了|还)|有啥(?:区别|不同|推荐|好)|(?:是|干|叫|选)啥(?!都|也)"
    r"|[\u4e00-\u9fff]还是[\u4e00-\u9fff]+(?<!的)$"
)


def _phrases(entries: list[str]) -> re.Pattern[str]:
    """English entries as one pattern of whole words or phrases (longest first)."""
    body = alternation(sorted({e.lower() for e in entries}))
    return re.compile(rf"(?<![\w'])(?:{body})(?![\w'])")


def _others(relations: list[str], pronouns: list[str]) -> re.Pattern[str]:
    """Other people's phrases: a possessive, up to two words, a relation ("my best friend", "our
    new neighbours", "my partner's"), or a pronoun or word for someone else."""
    nouns = "|".join(sorted((re.escape(r) for r in relations), key=len, reverse=True))
    relation = rf"(?:my|our|his|her|their)\s+(?:[\w'-]+\s+){{0,3}}?(?:{nouns})(?:s|es)?(?:'s?)?"
    return re.compile(rf"(?<![\w'])(?:{relation}|{_phrases(pronouns).pattern})(?![\w'])")


def _habitual(past: list[str], auxiliaries: list[str]) -> re.Pattern[str]:
    """ "I" and a verb in the simple present ("I decline it", "I coach on Saturdays"): English says
    what one does as a rule that way. Not a past form, an auxiliary, or a verb in -ed or -ing."""
    not_verbs = "|".join(sorted({*past, *auxiliaries}, key=len, reverse=True))
    return re.compile(rf"(?<![\w'])(?:i|we)\s+(?:\w+ly\s+)?(?!(?:{not_verbs})\b)[a-z]{{3,}}(?<!ed)(?<!ing)\b")


def _once(past: list[str]) -> re.Pattern[str]:
    """A first-person verb in the past ("I spilled coffee", "we finally finished", "forgot my
    umbrella"): it tells of once, unless a word of habit goes with it."""
    forms = "|".join(sorted(past, key=len, reverse=True))
    verb = rf"(?:{forms}|(?![a-z]*eed\b)[a-z]{{2,}}ed)"
    adverb = r"(?:\w+ly|just|finally|already|recently|once)\s+"
    # (not "my left hand", "my first unassisted pull-up", nor "get my brows threaded": a side, an
    # adjective, what the user has done as a rule)
    done_for = r"(?<!get\s)(?<!gets\s)(?<!got\s)(?<!getting\s)(?<!have\s)(?<!having\s)"
    mine = done_for + r"(?:my|our)\s+(?!left\b)(?:[\w'-]+\s+){0,2}?"
    # ("Got 3 kids under 6", "got a bad knee": what the user has, not what happened)
    opening = (
        rf"^(?:{adverb})?(?:{forms})(?<!got)|^(?:{adverb})?got(?!\s+(?:a|an|\d+|two|three|four|five|six|no|some)\b)"
    )
    return re.compile(
        rf"(?:{opening}|(?<![\w'])(?:i|we)\s+(?:{adverb})?{verb}|(?<![\w']){mine}(?!un[a-z]+ed\b){verb})\b"
    )


def _state(states: list[str]) -> re.Pattern[str]:
    """A passing state of the user's ("I'm bored", "I'm so tired")."""
    words = "|".join(sorted(states, key=len, reverse=True))
    after = r"(?=\s*(?:$|[,.!;]|today|tonight|now|right now|rn|atm|lol|tbh|and|so|but))"
    degree = r"(?:so\s+|really\s+|a\s+bit\s+|kinda\s+|very\s+)?"
    return re.compile(rf"(?<![\w'])i(?:'m|m| am)\s+{degree}(?:{words})\b{after}")


def _start(entries: list[str]) -> re.Pattern[str]:
    return re.compile(r"^" + _phrases(entries).pattern)


def _for_a_while(lists: _English, span: str) -> bool:
    """ "Right now", "for now" said of a circumstance ("no health insurance right now", "on chemo
    right now"): it holds for a while, not for the moment; not of an episode ("a migraine right now")."""
    if any(m.group() not in lists.for_a_while for m in lists.times.finditer(span)):
        return False  # ("tonight", "today": the moment whatever it is about)
    if lists.episodes.search(span):
        return False
    return lists.circumstances.search(span) is not None or lists.critical.search(span) is not None


@dataclass(frozen=True)
class _English:
    self_words: re.Pattern[str]
    assistant: re.Pattern[str]  # a span opening with the assistant ("You're more patient than …")
    fragment: re.Pattern[str]
    fragment_anywhere: re.Pattern[str]  # (a span may start at any clause of a turn)
    question: re.Pattern[str]
    conditional: re.Pattern[str]
    request: re.Pattern[str]
    imperatives: frozenset[str]
    # "just show me the lines you changed", "don't rewrite the whole thing": a lead and a verb of
    # the task, or a negation and a verb of editing ("don't send me X" may well be for good)
    instruction: re.Pattern[str]
    constraint_openers: frozenset[str]  # a bare constraint on the answer opens with one ("under 100 words")
    task: re.Pattern[str]
    transient: re.Pattern[str]
    outlasts_the_moment: re.Pattern[str]  # a passing state beside one of these is not of the moment
    hypothetical: re.Pattern[str]
    character: re.Pattern[str]  # the user cast as a character of a game ("I'm a halfling rogue who ...")
    pasted: re.Pattern[str]
    others: re.Pattern[str]
    bare_relation: re.Pattern[str]
    lasting: re.Pattern[str]
    strong: re.Pattern[str]
    habitual: re.Pattern[str]
    affects_me: re.Pattern[str]
    once: re.Pattern[str]
    state: re.Pattern[str]
    code: re.Pattern[str]
    conditional_only: re.Pattern[str]
    one_off: re.Pattern[str]
    content_verb: re.Pattern[str]
    deliverable: re.Pattern[str]  # a piece of writing asked for by its name ("Tweet announcing …")
    stance: re.Pattern[str]
    material: re.Pattern[str]
    times: re.Pattern[str]
    for_a_while: frozenset[str]  # times that, said of a circumstance, mean a while
    circumstances: re.Pattern[str]  # what holds for a while: money, a job, insurance
    episodes: re.Pattern[str]  # a condition's passing episode ("a migraine right now")
    events: re.Pattern[str]
    habit: re.Pattern[str]
    private: re.Pattern[str]
    generic: re.Pattern[str]  # objects that are things in general ("things", "new concepts")
    critical: re.Pattern[str]  # a condition named ("pregnant, second trimester"): a statement alone
    courtesy: re.Pattern[str]  # a span of courtesies only ("perfect, thank you so much!!", "Happy new year!")
    # any of what `may_state` looks for, in one pattern (one pass over a turn)
    may_state: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        looked_for = (
            self.self_words,
            self.strong,
            self.affects_me,
            self.fragment_anywhere,
            self.critical,
            _INTRODUCING_ANYWHERE,
        )
        object.__setattr__(self, "may_state", re.compile("|".join(f"(?:{p.pattern})" for p in looked_for)))


@dataclass(frozen=True)
class _Chinese:
    self_words: tuple[str, ...]
    request: tuple[str, ...]
    imperatives: tuple[str, ...]
    conditional: tuple[str, ...]
    task: tuple[str, ...]
    transient: tuple[str, ...]
    hypothetical: tuple[str, ...]
    pasted: tuple[str, ...]
    others: tuple[str, ...]
    lasting: tuple[str, ...]
    strong: tuple[str, ...]
    one_off: tuple[str, ...]
    request_inside: tuple[str, ...]  # a request wherever it stands in a clause ("开场白帮我写一段")
    content_verbs: tuple[str, ...]
    generic_objects: tuple[str, ...]
    stance: tuple[str, ...]
    material: tuple[str, ...]
    material_named: tuple[str, ...]  # kinds of material a turn may name before giving it after a colon
    code_words: tuple[str, ...]  # a tool or a piece of data named ("pandas", "字段") ...
    code_verbs: tuple[str, ...]  # ... with work asked of it ("建个表", "写个SQL"): code at hand
    times: tuple[str, ...]
    events: tuple[str, ...]
    habit: tuple[str, ...]
    private: tuple[str, ...]
    whereabouts: tuple[str, ...]  # "我在人民广场", "我在春熙路附近": where the user is now
    critical: tuple[str, ...]  # a condition named ("怀孕五个月了"): a statement alone
    courtesies: tuple[str, ...]  # a span of these only ("谢谢啦", "新年快乐！") states nothing
    assistant: tuple[str, ...]  # the assistant or its answer ("你的回答"): not about the user


@cache
def _lists() -> tuple[_English, _Chinese]:
    raw = resources.files("slotstream.memory").joinpath("data", "statements.json").read_text(encoding="utf-8")
    data = json.loads(raw)
    en, zh = data["en"], data["zh"]
    english = _English(
        self_words=_phrases(en["self"]),
        assistant=_start(en["assistant"]),
        fragment=_start(en["fragment_openers"]),
        fragment_anywhere=_phrases(en["fragment_openers"]),
        question=_start(en["question_openers"]),
        conditional=_start(en["conditional_openers"]),
        request=_start(en["request_openers"]),
        imperatives=frozenset(w.lower() for w in en["imperatives"]),
        instruction=re.compile(
            rf"(?:{_start(en['instruction_leads']).pattern})\s+(?:{_phrases(en['task_verbs']).pattern})"
            rf"|(?:{_start(en['negations']).pattern})\s+(?:{_phrases(en['edit_verbs']).pattern})"
        ),
        constraint_openers=frozenset(en["constraint_openers"]),
        task=_phrases(en["task_at_hand"]),
        transient=_phrases(en["transient"]),
        outlasts_the_moment=_phrases(en["outlasts_the_moment"]),
        hypothetical=_phrases(en["hypothetical"]),
        character=re.compile(
            r"(?<![\w'])(?:i'm|im|i\s+am)\s+an?\s+(?:[\w-]+\s+){0,2}?(?:"
            + alternation(sorted(en["characters"]))
            + r")(?![\w'])"
        ),
        pasted=_phrases(en["pasted"]),
        others=_others(MARKERS.words["relations"], en["other_people"]),
        # someone named by a relation without a possessive, opening the clause ("coworker is allergic ...")
        bare_relation=re.compile(
            r"^(?:(?:the|our|a|an)\s+)?(?:new\s+)?(?:"
            + alternation(sorted(en["bare_relations"]))
            + r")(?:s|'s)?(?![\w'])"
        ),
        lasting=_phrases(en["lasting"]),
        strong=_phrases(en["strong"]),
        habitual=_habitual(en["past_forms"], en["auxiliaries"]),
        affects_me=re.compile(
            r"(?<![\w'])(?:" + "|".join(en["affects_me"]) + r")\s+(?:me|my)\b"
            r"|\b(?:is|are|'s|was|isn't|aren't|is not|are not)\s+(?:my|our)\b"
        ),
        once=_once(en["past_forms"]),
        state=_state(en["passing_states"]),
        # code at hand, or a piece of the writing at hand ("the second draft", "this paragraph"; not "a
        # chapter every night")
        code=re.compile(
            r"(?<![\w'])(?:my|a|an|this|the|our|each)\s+(?:[\w'-]+\s+){0,2}?(?:" + "|".join(en["code_words"]) + r")s?\b"
            r"|(?<![\w'])(?:my|the|this|these|that|our)\s+(?:[\w'-]+\s+){0,2}?(?:"
            + "|".join(en["work_words"])
            + r")s?\b"
        ),
        conditional_only=re.compile(r"^(?:" + _phrases(en["conditional_openers"]).pattern + r")[^,]*$"),
        one_off=_phrases(en["one_off"]),
        # "explain step by step", "say it in French": a content verb that opens the instruction and
        # is not about things in general ("explain things with examples")
        content_verb=re.compile(
            _start(en["content_verbs"]).pattern
            + r"(?!\s+(?:(?:me|us)\s+)?(?:"
            + "|".join(re.escape(o) for o in sorted(en["generic_objects"], key=len, reverse=True))
            + r")\b)"
        ),
        # ("I need a eulogy template, ...", "newsletter blurb for ...", "SQL, find ..."): named, it is
        # asked for, and what follows is its detail
        deliverable=re.compile(
            r"^(?:(?:i\s+need|i\s+want|i'd\s+like|need|want)\s+)?(?:(?:an?|the|short|quick)\s+)*"
            r"(?:(?!i\b)[\w'-]+\s+)?(?:"
            + alternation(sorted(en["deliverables"]))
            + r")s?(?:\s+(?:"
            + alternation(sorted(en["deliverable_links"]))
            + r")(?![\w'])|\s*[,:]|$)"
        ),
        stance=_phrases(en["stance"]),
        material=_phrases(en["material"]),
        times=_phrases(en["times"]),
        for_a_while=frozenset(en["for_a_while"]),
        circumstances=_phrases(en["circumstances"]),
        episodes=_phrases(en["episodes"]),
        events=_phrases(en["events"]),
        habit=_phrases(en["habit"]),
        private=_phrases(en["private"]),
        generic=_phrases(en["generic_objects"]),
        critical=_phrases(en["critical"]),
        courtesy=re.compile(rf"^(?:[^\w]*(?:{_phrases(en['courtesies']).pattern}))+[^\w]*$"),
    )
    chinese = _Chinese(
        self_words=tuple(zh["self"]),
        request=tuple(zh["request_openers"]),
        imperatives=tuple(zh["imperatives"]),
        conditional=tuple(zh["conditional_openers"]),
        task=tuple(zh["task_at_hand"]),
        transient=tuple(zh["transient"]),
        hypothetical=tuple(zh["hypothetical"]),
        pasted=tuple(zh["pasted"]),
        others=tuple(sorted(zh["other_people"], key=len, reverse=True)),
        lasting=tuple(zh["lasting"]),
        strong=tuple(zh["strong"]),
        one_off=tuple(zh["one_off"]),
        request_inside=tuple(zh["request_inside"]),
        content_verbs=tuple(zh["content_verbs"]),
        generic_objects=tuple(zh["generic_objects"]),
        stance=tuple(zh["stance"]),
        material=tuple(zh["material"]),
        material_named=tuple(zh["material_named"]),
        code_words=tuple(zh["code_words"]),
        code_verbs=tuple(zh["code_verbs"]),
        times=tuple(zh["times"]),
        events=tuple(zh["events"]),
        habit=tuple(zh["habit"]),
        private=tuple(zh["private"]),
        whereabouts=tuple(zh["whereabouts"]),
        critical=tuple(zh["critical"]),
        courtesies=tuple(sorted(zh["courtesies"], key=len, reverse=True)),
        assistant=tuple(zh["assistant"]),
    )
    return english, chinese


_FIRST_WORD = re.compile(r"[a-z][a-z'\-]*")
# code in a sentence ("my useEffect runs twice", "parse_args()", "main.py"): the task at hand
_CODE = re.compile(
    r"\b[a-z]{2,}[A-Z][A-Za-z]+\b|\b\w+\(\)|\b\w+_\w+\b|`|=>|\)\s*\{|\[(?:ERROR|WARN|INFO)\]|(?<!\w)--[a-z]"
    r"|\b\w+\.(?:py|js|ts|tsx|jsx|go|rs|java|cpp|sql|json|yaml|yml|csv|html|css)\b"
)
# what the user is ("I'm vegetarian", "I'm a nurse", "I am 20 weeks pregnant"), not what they are
# doing ("I'm getting", "I'm trying"): a state that lasts
_BEING = re.compile(r"(?<![\w'])(?:i'm|im|i am|we're|we are)\s+(?!\w+ing\b)(?:a\s+|an\s+|\w+\s+)?\w+")
# what the user's things are or have ("my kitchen has no oven", "our house is tiny")
_HAVING = re.compile(
    r"(?<![\w'])(?:my|our)\s+(?:[\w'-]+\s+){0,2}?(?:is|are|has|have|isn't|aren't|doesn't|don't|needs|need|won't|can't|"
    r"gets|get|makes|make|keeps|runs|takes)\b"
)
# what one of the user's things is, when it is a value that says what it is ("my grant application
# deadline is May 15", "our budget for the kitchen reno is 15k"): a longer name than `_HAVING` takes
_MY_VALUE = re.compile(r"(?<![\w'])(?:my|our)\s+(?:[\w'-]+\s+){1,5}?(?:is|are|will\s+be)\s+(?P<value>.+)")
# the user alone ("we" may be the user and the person named: "coworker is allergic, we're doing a potluck")
_I_ALONE = re.compile(r"(?<![\w'])(?:i|i'm|im|i've|i'd|i'll)(?![\w'])")
_I = re.compile(r"(?<![\w'])(?:i|i'm|im|i've|i'd|i'll|we|we're)(?![\w'])")
# who the user is, said as "<someone> here" ("Professional DJ here", "guy here")
_INTRODUCING = re.compile(
    r"^(?!(?:come|go|get|look|click|sit|stay|right|over|out|in|from|up|down|back|near|around|put|stop|start|be|is|are|"
    r"was|i'm|im|you're|it's|not|nobody|no one|anyone|someone)\b)[\w' -]{2,30}\s+here(?:$|\s*[,.;:!(—–-])"
)
_FOR_ME = re.compile(r"\s+for\s+(?:me|us)\b")
# a state inside a condition is what happens each time it holds ("if I sleep less than 7 hours I
# get a migraine", "stations without lifts are a real problem when I'm away"), not the moment
_CONDITION = re.compile(r"(?<![\w'])(?:if|when|whenever|every\s+time|any\s+time|anytime)(?![\w'])")


def _of_the_moment(words: re.Pattern[str], span: str) -> bool:
    """Whether a word of a passing state in the span is of the moment: not after a condition."""
    found = words.search(span)
    if found is None:
        return False
    condition = _CONDITION.search(span)
    return condition is None or condition.start() > found.start()


# where the user is, or what they are on, said of the moment: the span opens with it ("on my
# phone, keep it short") or the user is there ("I'm on the train", "stuck at the airport"); said
# of what they do ("I watch everything on my phone on the train"), it is a habit
_PLACE = re.compile(r"(?:on|at)\s")
_THERE_NOW = re.compile(
    r"(?:^|(?<![\w'])(?:i'm|im|i\s+am|we're|we\s+are|currently|still|now|stuck|sitting|standing|waiting|"
    r"riding|heading|typing|texting|writing\s+this)(?:\s+[\w']+){0,2})\s*[,.]?\s*$"
)
# a state said with what brings it on or whenever it holds ("so tired of brands that stop at XL",
# "can't sleep with even a sliver of light", "can't sleep on planes at all"): not the moment
_STATE_AS_A_RULE = re.compile(r"^\s+(?:of|with|if|when|whenever|unless|on\s+\w+s\b)|\bat\s+all\b|\bafterwards\b")


def _passing_now(words: re.Pattern[str], span: str) -> bool:
    """Whether a word of a passing state (`transient`) in the span says the user's moment: a place
    or a device the user is at now, or a state not said as what comes with something."""
    condition = _CONDITION.search(span)
    for found in words.finditer(span):
        if condition is not None and condition.start() < found.start():
            continue  # (after a condition: what happens each time it holds)
        if _PLACE.match(found.group()):
            if _THERE_NOW.search(span[: found.start()]):
                return True
            continue
        if not _STATE_AS_A_RULE.search(span[found.end() : found.end() + 40]):
            return True
    return False


_UNTIL_HOUR = re.compile(r"\b(?:till|til|until)\s+\d{1,2}(?::\d\d)?\s*(?:am|pm|o'clock)?\b")
_WHEREABOUTS = re.compile(
    r"(?i:\bi'?m|\bi\s+am|\bwe're|\bwe\s+are)\s+(?i:currently\s+|now\s+|still\s+)?(?i:in|at)\s+[A-Z]"
)
# what follows from where the user is ("I'm in Canada, so a lot of US deals don't ship here"): where
# they live, not where they are passing through
_CONSEQUENCE = re.compile(r"(?<![\w'])(?:so|which\s+means|meaning)\s+(?!what|where|how|which|can|could|should)\w")
# a lead-in that asks the assistant to take note of what follows ("Please know I've got health
# anxiety", "fyi, ..."): what follows is the statement, not a request
_HEADS_UP = re.compile(
    r"^(?:please\s+)?(?:know|note|be\s+aware|keep\s+in\s+mind|bear\s+in\s+mind|fyi|for\s+context|heads\s+up)"
    r"(?:\s+that)?(?:\s*[,:]\s*|\s+)(?=i\b|i'|my\b|we\b)"
)
# a span about someone named ("Tom's goal is ...", "Jake uses Linux"): not the user
_NAMED = re.compile(
    r"^(?!I\b|I'|My\b|We\b|Our\b)[A-Z][a-z]+(?:\s+(?:says|said|asked|told|thinks|wants|keeps|uses|likes|loves|hates)\b"
    r"|'s\s+(?:goal|goals|plan|wife|husband|partner|kids|son|daughter|mom|dad|boss|team|idea|opinion)\b)"
)
# what an instruction about material names it by ("summarise this", "fix the following")
_MATERIAL = re.compile(
    r"\b(?:this|these|that|those|the following|below|above)\b"
    r"|\bmy\s+(?:sql|code|query|regex|script|function|tests?|json|yaml|css|html)\b"
)
# quoted words are someone else's (a sentence to rewrite, a line of dialogue): not the user's
_QUOTED = re.compile(r"[\"“”][^\"“”]{12,}[\"“”]|(?<![\w])'[^']{12,}'(?![\w])")
# words in the first person quoted in a turn that asks for work ("opening with "I'm allergic to
# mediocrity..."", a function that parses "I love X"): material for the task, not the user's
_QUOTED_FIRST_PERSON = re.compile(
    r"[\"“][^\"“”]*(?<![\w'])(?:i|i'm|im|i've|i'd|my|me)(?![\w'])[^\"“”]*[\"”]", re.IGNORECASE
)
_LEAD = re.compile(r"^[\s\"'“”*•\-–—>]+")


# a turn that opens by giving the assistant a role ("你是侍酒师，我是…的客人"; not "你是对的")
_ZH_ROLE = re.compile(r"^你(?:现在)?是(?!对|错|不|说|指|觉得|想)[\u4e00-\u9fff]{1,6}[，,]")
# first-person words in quotes ("“我喜欢爬山，讨厌广告”"), and the user outside them (not "帮我", "给我":
# who a request is for)
_ZH_QUOTED_FIRST_PERSON = re.compile(r"[“「『\"][^”」』\"]*[我俺][^”」』\"]*[”」』\"]")
_ZH_SELF_OUTSIDE = re.compile(r"(?<![帮给让替为跟陪教叫请])[我俺咱](?!该|要不要|应该|怎么|能不能|可以|能)|本人")
# the user somewhere ("我在…", "我现在在…", "我人在…"), with nothing said of what they do there
_ZH_WHEREABOUTS = re.compile(r"^我(?:现在|人)?在[^，,。；;]{1,14}$")
# a quote given after a colon ("知乎上有人说：“我一直是夜猫子…”", "我大伯发了：“…”"): someone's words
_ZH_QUOTE_AFTER_COLON = re.compile(r"[：:]\s*[“「『\"][^”」』\"\n]{10,}[”」』\"]")
# Chinese material after the words that point at it ("帮我把这段博客翻成英文：我第一次去冰岛…")
_ZH_MATERIAL = re.compile(r"(?:这段|这篇|这封|这条|下面|以下)[^：:\n]{0,20}[：:]\s*\S.{30,}")


@cache
def _zh_material_named() -> re.Pattern[str]:
    """A turn whose opening names a kind of material and then gives it after a colon ("这是今天的会议
    记录 帮我提炼待办：张总：我这周…", "软件工程测验题 选出…：A. 作为管理员 我希望…"): the first person
    after the colon is the material's, not the user's."""
    kinds = "|".join(re.escape(k) for k in _lists()[1].material_named)
    return re.compile(rf"^[^：:\n]{{0,30}}(?:{kinds})[^：:\n]{{0,20}}[：:]\s*\S.{{30,}}", re.S)


# a quote opened after a colon, a question or the word that points at it, running on for a while
# ("make her dating bio funnier: 'I'm a vet tech, I love …", "what does she mean?? 'I'm fine. …"):
# someone else's words, whether or not the quote is closed (its apostrophes are not quotes)
_OPENS_A_QUOTE = re.compile(
    r"(?:[:：?？]|\b(?:this|these|said|says|wrote|texted))\s*['‘\"“](?=\w)(?:[^'’\"”\n]|['’](?=\w)){40,}"
)


def _pasted(turn: str, markers: re.Pattern[str] | tuple[str, ...], opening: str) -> bool:
    """A turn that carries material the user pasted: several lines of it, a quoted block, or, in
    its opening sentence, the wording that introduces one ("here is", "below", "transcript:")."""
    lines = [line for line in turn.splitlines() if line.strip()]
    if len(lines) >= 3 or (len(lines) == 2 and len(turn) > 160):
        return True
    if len(lines) >= 2 and lines[0].rstrip().endswith((":", "：")):
        return True  # "Reply to this review:\n…"
    if (
        "```" in turn
        or re.search(r"[\"“「『][^\"”」』]{60,}[\"”」』]", turn)
        or _OPENS_A_QUOTE.search(turn)
        or _ZH_MATERIAL.search(turn)
        or _zh_material_named().search(turn)
        or _ZH_QUOTE_AFTER_COLON.search(turn)
    ):
        return True
    if isinstance(markers, tuple):
        return any(m in opening for m in markers)
    return markers.search(opening.translate(_APOSTROPHES).casefold()) is not None


_FILLER = re.compile(r"^(?:(?:also|and|so|btw|ok|okay|oh|hmm|well|but|plus|anyway|ah|um|uh|now|wait)\b[,\s]*)+")


# what holds now beside what happened once ("I used to lift heavy, these days I'm into yoga", "dogs
# scare me, I got bitten as a kid", "I have a heart condition and my cardiologist said ...")
# how something always affects the user ("strong perfumes give me a headache", "dogs scare me"),
# not an imperative ("just give me the command")
_AFFECTS_AS_A_RULE = re.compile(
    r"(?<!just )(?<!please )\b(?:gives?|make?s?)\s+me\s+(?:a\s+|the\s+)?(?:headaches?|migraines?|nause\w*|hives|"
    r"rash(?:es)?|heartburn|anxi\w*|sick|the\s+creeps|the\s+ick)\b|\bscares?\s+me\b|\b(?:grosse?s?|freaks?|stress(?:es)?)\s+me\s+out\b"
)
_NOW_AS_A_RULE = re.compile(
    r"\b(?:these\s+days|nowadays|now\s+i|now\s+it's|i'm\s+(?:way\s+)?(?:more\s+)?into|"
    r"still\s+(?:no|not|can't|cannot|can\s+not|doesn't|don't|isn't|have\s+to|need|get)|"
    r"my\s+(?:doctor|gp|cardiologist|neurologist|oncologist|dermatologist|allergist|physio|physiotherapist|surgeon|"
    r"dietitian|pt|ob|obgyn)\s+(?:said|says|told\s+me|wants|has\s+me)|"
    r"i\s+have\s+(?:a|an)\s+\w+(?:\s+\w+)?\s+(?:condition|disease|disorder|allergy|intolerance))\b"
    r"|" + _AFFECTS_AS_A_RULE.pattern
)


# a reaction to what was just said or to the assistant, and nothing else ("love it", "i hate that!",
# "I love that answer lol", "I love talking to you", "I hate when that happens lol")
_REACTION = re.compile(
    r"^(?:i\s+)?(?:love|loved|like|liked|hate|hated|adore|dig|enjoy)\s+"
    r"(?:it|that|this|you|(?:that|this|your)\s+(?:answer|reply|one|idea)|(?:talking|chatting)\s+(?:to|with)\s+you|"
    r"when\s+(?:that|this|it)\s+happens|how\s+(?:\w+\s+){1,2}(?:that|this|it)\s+(?:is|was))\b"
    r"(?:\s+(?:here|there))?(?:\s+(?:lol|haha|so\s+much))?[\s.!]*$"
)
# a turn that opens by judging what was just said ("That was a terrible pun and I hate that I
# laughed", "ok that's hilarious"): about the last answer, not the user
_ABOUT_THE_LAST_ANSWER = re.compile(
    r"^(?:(?:ok|okay|wow|lol|haha|omg|honestly|ngl|wait)[\s,!.]+)*"
    r"(?:that's|thats|that\s+was|that\s+is|that\s+(?:joke|pun|one|answer|reply))(?![\w'])"
    r"|(?<![\w'])(?:that|your)\s+(?:joke|pun)(?![\w'])"
)
# a word of stance in a clause describing someone or something else ("a girl who is allergic to
# sunlight", "customers who have never placed an order"): theirs, not the user's, unless the one
# described is the user ("I'm a retired teacher who ...", "as a woman who ...", "guy in my 40s who ...")
_DESCRIBED = re.compile(r"(?<![\w'])(?:who|which)(?:'s)?(?![\w'])[^,.;!?]*")
_DESCRIBES_THE_USER = re.compile(
    r"(?<![\w'])(?:i'm|im|i\s+am|as\s+an?|my|someone|somebody|the\s+kind|the\s+type)(?![\w'])"
)
_FIRST_PERSON = re.compile(r"(?<![\w'])(?:i|i'm|im|i've|i'd|me|my|we|our|us)(?![\w'])")


def _undescribed(span: str) -> str:
    """The span without what it says of someone or something it describes (`_DESCRIBED`)."""

    def drop(m: re.Match[str]) -> str:
        before = re.split(r"[,.;!?]", span[: m.start()])[-1]
        if _DESCRIBES_THE_USER.search(before) or _FIRST_PERSON.search(m.group()):
            return m.group()
        return " "

    return _DESCRIBED.sub(drop, span) if "wh" in span else span


def _without_courtesies(span: str, courtesy: re.Pattern[str]) -> str:
    """The span's clauses that are not courtesies ("I love this, thank you" -> "I love this")."""
    return ", ".join(c for c in span.split(", ") if not courtesy.match(c))


# agreeing with what was just said or not, and nothing else ("我也是哈哈", "同感", "不太对")
_ZH_REACTION = re.compile(
    r"^(?:我也是|我也一样|我也这么觉得|我也觉得|同感|同意|确实|真的|哈+|嗯+|对|不对|不太对|没错|好的)"
    r"[啊呀吧的了哈嘿呢!！~～。.…]*$"
)


def _sentences_en(folded: str) -> list[str]:
    return re.split(r"(?<=[.!?])\s+|\n+", _QUOTED.sub(" ", folded))


def _sentences_zh(turn: str) -> list[str]:
    return re.split(r"(?<=[。！？!?])\s*|\n+", _ZH_QUOTED.sub(" ", turn))


class _EnglishReader:
    def __init__(self) -> None:
        self.lists = _lists()[0]
        # a turn's spans are read for what lasts, then again for what the lasting model may keep,
        # and for news: the reading of its clauses is done once
        self.candidates: Callable[[str], tuple[str, ...]] = lru_cache(maxsize=64)(self.read_candidates)

    def is_request(self, clause: str, opens: bool, asks: bool) -> bool:
        """A clause that asks or instructs. `opens`: it opens its sentence (where an imperative or
        a question word starts one); `asks`: its sentence ends with a question mark."""
        lists = self.lists
        clause = _FILLER.sub("", clause)  # "also what's a good word for ...": a question all the same
        if lists.request.match(clause) or (asks and clause.endswith("?")):
            return True
        if not opens:
            return False
        if lists.question.match(clause) and (asks or not lists.conditional.match(clause)):
            return True
        first = _FIRST_WORD.match(clause)
        return (
            (first is not None and first.group() in lists.imperatives)
            or lists.instruction.match(clause) is not None
            or lists.deliverable.match(clause) is not None  # "Haiku about preferring rain over sunshine"
        )

    def _introduces_material(self, sentence: str) -> bool:
        """A turn that opens with an instruction about material ("Condense this into one tweet:
        Our library will be closed..."): what follows the colon is the material, not the user's word."""
        first = _EN_CLAUSES.split(sentence.strip(), maxsplit=1)
        low = _LEAD.sub("", first[0]).casefold()
        if len(first) < 2 or not self.is_request(low, True, False):
            return False
        if not re.search(r"[:：]\s*\S", sentence):
            return False  # the material follows a colon ("Condense this into one tweet: ...")
        return _MATERIAL.search(low) is not None

    def keeps(
        self, span: str, original: str, needs_stance: bool = True, asks: bool = False, instructs: bool = False
    ) -> bool:
        """`needs_stance`: the span must hold a word of stance, habit or circumstance; without, every span
        nothing rules out is kept (the lasting model then judges it: `unworded_statements`). `asks`:
        the turn asks something; `instructs`: a clause of it asks or instructs."""
        lists = self.lists
        task = lists.task.search(span)
        if (task and not _FOR_ME.match(span, task.end())) or lists.events.search(span):
            return False  # (not "audio-only learning just doesn't work for me": a stance)
        if _of_the_moment(lists.state, span):
            return False
        if lists.times.search(span) and not (lists.outlasts_the_moment.search(span) or _for_a_while(lists, span)):
            return False  # "for today's presentation ...", but "I always check today's specials"
        if (
            _REACTION.match(_FILLER.sub("", _without_courtesies(span, lists.courtesy)))
            or lists.assistant.match(span)
            or lists.courtesy.match(span)
        ):
            return False  # "love it", "hate that", "thanks!": about what was just said, or the assistant
        # a passing state, unless the span says what always affects the user ("strong perfumes
        # give me a headache", not "I have a headache") or says it outlasts the moment ("horror games
        # are a hard no, I can't sleep afterwards", "I always buy travel insurance ever since I got
        # stuck in Bali")
        if _passing_now(lists.transient, span) and not (
            _AFFECTS_AS_A_RULE.search(span) or lists.outlasts_the_moment.search(span)
        ):
            return False
        if _UNTIL_HOUR.search(span):
            return False  # "my nephews are over till 5": an afternoon, not a lasting fact
        if lists.private.search(span):
            return False  # an address or a number given for a task: not kept verbatim
        if _WHEREABOUTS.search(original) and not _CONSEQUENCE.search(span):
            return False  # "I'm in Berlin": where the user is now, maybe passing through
        if _NAMED.match(original) or lists.code.search(span):
            return False  # about someone named ("Tom's goal is ..."); code at hand
        if (lists.others.match(span) and not _I.search(span)) or (
            lists.bare_relation.match(span) and not _I_ALONE.search(span)
        ):
            return (
                False  # opens with someone else ("My coworker is on Pacific time, so ...", "coworker is allergic ...")
            )
        if lists.once.search(span) and not (
            lists.strong.search(span) or _NOW_AS_A_RULE.search(span) or is_critical(span)
        ):
            return False  # "I finally cleaned out the garage": once (not "had a DVT, on blood thinners now")
        own = lists.others.sub(" ", span)  # "my sister is vegan": about her
        plain = _undescribed(own)  # "a dragon who is allergic to fire": the dragon's
        if not needs_stance:
            # words without a subject beside a request are its detail ("Write a best man toast ...
            # Groom is Dan, obsessed with fishing"), not the user's
            # (someone named further on leaves the span the user's: it does not open with them)
            return lists.self_words.search(own) is not None or not instructs
        if lists.affects_me.search(plain):
            return True  # "Buffets gross me out", "Yoga is my happy place"
        if lists.self_words.search(plain) or lists.fragment.match(span) or _INTRODUCING.match(span):
            if any(p.search(plain) for p in (lists.lasting, lists.habitual, _BEING, _HAVING, _INTRODUCING)):
                return True
            value = _MY_VALUE.search(plain)
            return value is not None and gives_a_value(value.group("value"))
        # no subject ("Egg allergy", "Heels are a hard no", "SPF 50 every day", "pregnant, second
        # trimester"): kept on a strong word, or a condition named in a turn that asks nothing
        # ("warfarin and vitamin K, how do they interact?" names the question's topic); never when
        # about someone else
        return own == span and (lists.strong.search(plain) is not None or (not asks and is_critical(plain)))

    def told(self, span: str, original: str) -> bool:
        """A span the user tells of themself in any words: not about someone else, no code."""
        lists = self.lists
        if _NAMED.match(original) or lists.code.search(span):  # (code: `spans` left it out already)
            return False
        return not (
            (lists.others.match(span) and not _I.search(span))
            or (lists.bare_relation.match(span) and not _I_ALONE.search(span))
        )

    def spans(self, turn: str, whole_read: bool = False, news: bool = False, needs_stance: bool = True) -> list[str]:
        """`whole_read`: the caller already knows the turn is neither pasted nor pretend. `news`:
        every span the user tells of themself (`told`), lasting or not. `needs_stance`: as `keeps`."""
        if not whole_read:
            folded = turn.translate(_APOSTROPHES)
            if _english_context(self, folded, _sentences_en(folded)) is not None:
                return []
        if news:
            return [span for span in self.candidates(turn) if self.told(span.casefold(), span)]
        candidates = self.candidates(turn)
        if not candidates:
            return []  # (most turns: nothing more to read of them)
        instructs = not needs_stance and self.instructs(turn)
        sentences = _sentences_en(turn.translate(_APOSTROPHES))
        opening = _LEAD.sub("", turn).translate(_APOSTROPHES).casefold()
        judged = _ABOUT_THE_LAST_ANSWER.search(opening) is not None  # (the span opening such a turn is no statement)
        return [
            span
            for span in candidates
            if self.keeps(span.casefold(), span, needs_stance, _asked_beside(span, sentences, turn), instructs)
            and not (judged and opening.startswith(span.casefold()[:12]))
        ]

    def instructs(self, turn: str) -> bool:
        """Whether a clause of the turn asks or instructs."""
        for sentence in _sentences_en(turn.translate(_APOSTROPHES)):
            asks = sentence.rstrip().endswith("?")
            for number, clause in enumerate(_EN_CLAUSES.split(sentence)):
                low = _LEAD.sub("", clause).strip().casefold().rstrip(".! ")
                if low and self.is_request(low, number == 0, asks):
                    return True
        return False

    def read_candidates(self, turn: str) -> tuple[str, ...]:
        """The turn's runs of clauses that neither ask nor instruct, joined as written (what `keeps`
        or `told` then judges); `candidates` is this, remembered for the last turns read."""
        lists = self.lists
        kept: list[str] = []
        for sentence in _sentences_en(turn.translate(_APOSTROPHES)):
            span: list[str] = []
            asks = sentence.rstrip().endswith("?")
            asked_first = False  # the sentence opens with a request: what follows is its detail
            opening = True  # (a clause after a filler alone opens the sentence: "anyway, what's a good …")
            for clause in [*_EN_CLAUSES.split(sentence), ""]:
                text = _LEAD.sub("", clause).strip()
                low = _HEADS_UP.sub("", text.casefold().rstrip(".! "))
                number = 0 if opening else 1
                opening = opening and not _FILLER.sub("", low + " ").strip()
                if low and not self.is_request(low, number == 0, asks):
                    if not asked_first or _I.search(low):
                        span.append(text)
                    continue
                asked_first = asked_first or number == 0
                joined = ", ".join(span)
                # a condition whose main clause asks ("If I moved to Berlin, would I ...?") states nothing
                asked = bool(low) and lists.conditional_only.match(joined.casefold()) is not None
                if span and not asked and not _CODE.search(joined):
                    kept.append(joined)
                span = []
        return tuple(kept)


class _ChineseReader:
    def __init__(self) -> None:
        self.lists = _lists()[1]
        self.candidates: Callable[[str], tuple[str, ...]] = lru_cache(maxsize=64)(self.read_candidates)

    def is_request(self, clause: str, opens: bool) -> bool:
        if _ZH_QUESTION_END.search(clause) or _ZH_QUESTION_WORD.search(clause):
            return True
        return (
            clause.startswith(self.lists.request)
            or (opens and clause.startswith(self.lists.imperatives))
            or any(w in clause for w in self.lists.request_inside)
        )

    def keeps(self, span: str, needs_stance: bool = True) -> bool:
        """`needs_stance`: as the English reader's."""
        lists = self.lists
        if any(w in span for w in (*lists.task, *lists.events, *lists.private)) or _ZH_REACTION.match(span):
            return False
        if any(w in span for w in lists.assistant):
            return False  # "我超爱你的回答", "你真是我的救星": about the assistant
        if not _courtesies_removed(span, lists.courtesies):
            return False  # "谢谢啦！", "新年快乐": courtesies only
        if _ZH_WHEREABOUTS.match(span) and span.rstrip(" ，,。.!！~").endswith(lists.whereabouts):
            return False  # where the user is now ("我在人民广场"), not where they live
        stance = any(w in span for w in lists.strong)
        # a passing state or a word of the moment, unless the span says what holds as a rule
        # ("吵的餐厅我受不了…吃完出来头疼", "新家具一进门就咳嗽", "我每天到公司第一件事就是列今天的to do list")
        if any(w in span for w in lists.transient) and ("现在在" in span or not (stance or _ZH_HABIT.search(span))):
            return False  # ("现在在外面只有手机": where the user is now outweighs the "只有")
        if any(w in span for w in lists.times) and not (
            _ZH_HABIT.search(span) or _UNTIL_DAY_ZH.search(span) or _NEXT_SPAN_ZH.search(span)
        ):
            return False  # the moment or a day's event ("我在准备周五的考试"), unless it says when it ends
        own = _someone_else().sub(" ", span) if "我是那种" not in span else span
        if self.code_at_hand(span):
            return False
        if _about_them(span, own, lists.self_words) or _ZH_NAMED.match(span):
            return False  # "我闺蜜乳糖不耐受", "小王的目标是...": about them
        if _ZH_ONCE.search(span) and not (_ZH_HABIT.search(span) or is_critical(span)):
            return False  # "我就只吃了薯条": once (not "去年查出来高血压")
        if not needs_stance:
            return True
        # the user's own words of stance, or (Chinese drops its subject: "受不了地毯房",
        # "不喜欢SUV") a word of stance alone
        return (
            any(w in own for w in lists.strong)
            or (any(w in own for w in lists.self_words) and any(w in own for w in lists.lasting))
            or (own == span and is_critical(span))  # a condition named ("怀孕五个月了")
        )

    def told(self, span: str) -> bool:
        """A span the user tells of themself in any words: not about someone else, no code."""
        own = _someone_else().sub(" ", span)
        return not (self.code_at_hand(span) or _about_them(span, own, self.lists.self_words) or _ZH_NAMED.match(span))

    def code_at_hand(self, span: str) -> bool:
        """Code, or a tool or a piece of data named with work asked of it, where the user says
        nothing of themself ("用pandas建个表：1号受访者喜欢喝茶", "有个字段叫最讨厌的菜 写个SQL"): the
        work at hand, not the user's stance ("在自学Python，现在学到pandas了", "写代码的时候我喜欢开着白噪音"
        are the user's)."""
        if _ZH_CODE.search(span):
            return True
        lists = self.lists
        folded = span.casefold()
        return (
            any(w in folded for w in lists.code_words)
            and any(w in span for w in lists.code_verbs)
            and not any(w in span for w in lists.self_words)
        )

    def spans(self, turn: str, whole_read: bool = False, news: bool = False, needs_stance: bool = True) -> list[str]:
        """`whole_read`: the caller already knows the turn is neither pasted nor pretend. `news`:
        every span the user tells of themself (`told`), lasting or not. `needs_stance`: as `keeps`."""
        lists = self.lists
        if not whole_read and (
            any(w in turn for w in lists.hypothetical) or _pasted(turn, lists.pasted, _sentences_zh(turn)[0])
        ):
            return []
        if news:
            return [span for span in self.candidates(turn) if self.told(span)]
        return [span for span in self.candidates(turn) if self.keeps(span, needs_stance)]

    def read_candidates(self, turn: str) -> tuple[str, ...]:
        """As the English reader's."""
        lists = self.lists
        kept: list[str] = []
        for sentence in _sentences_zh(turn):
            span: list[str] = []
            asked_first = False  # the sentence opens with a request: what follows is its detail
            for number, clause in enumerate([*_ZH_CLAUSES.split(sentence), ""]):
                text = clause.strip(" 。.!！~～")
                if text and not self.is_request(clause.strip(), number == 0):
                    if not asked_first or text.startswith(lists.self_words):
                        span.append(text)
                    continue
                asked_first = asked_first or number == 0
                joined = "，".join(span)
                # a condition whose main clause asks ("如果我吃素，蛋白质够吗？") states nothing, nor
                # does the set-up of a question that names no one ("两个表的工号明明一样，怎么回事")
                asked = bool(text) and (
                    joined.startswith(lists.conditional)
                    or (
                        bool(_ZH_QUESTION_END.search(text) or _ZH_QUESTION_WORD.search(text))
                        and not any(w in joined for w in lists.self_words)
                        and not any(w in joined for w in lists.strong if w not in _ZH_ONLY_ADVERBS)
                    )
                )
                if span and not asked:
                    kept.append(joined)
                span = []
        return tuple(kept)


_ZH_PARTICLES = re.compile(r"[\W_啊呀吧的了哈嘿呢啦哦喔噢嘛~～]+")


def _courtesies_removed(span: str, courtesies: tuple[str, ...]) -> str:
    """What a Chinese span says besides its courtesies and particles."""
    for word in courtesies:
        span = span.replace(word, "")
    return _ZH_PARTICLES.sub("", span)


def _asked_beside(span: str, sentences: list[str], turn: str) -> bool:
    """Whether the sentence a span was read from asks something ("warfarin and vitamin K, how do they
    interact?"); a question in a sentence of its own asks nothing of the span ("T1 diabetic, fyi.
    anyway can you recommend a carry-on?"). A span found in no one sentence: whether the turn asks."""
    first = span.split(", ", 1)[0]
    found = [sentence for sentence in sentences if first in sentence]
    return "?" in found[0] if len(found) == 1 else "?" in turn


def _about_them(span: str, own: str, self_words: tuple[str, ...]) -> bool:
    """Someone else is the subject: the span opens with them ("我闺蜜乳糖不耐受") and no later clause
    is the user's own ("…，我做菜就一点辣都不放"); one mentioned further on ("衣服嘛穿着舒服最重要，
    我老婆老说…") leaves the span the user's."""
    if own == span:
        return False
    first = _ZH_CLAUSES.split(span, maxsplit=1)[0]
    if _someone_else().sub(" ", first) == first:
        return False  # the opening clause names no one else
    clauses = [c.strip() for c in _ZH_CLAUSES.split(span)[1:] if c.strip()]
    if own.lstrip().startswith(self_words):
        return False  # "我…": the user is the subject
    return not any(c.startswith(self_words) for c in clauses)


def names_someone_else(text: str) -> bool:
    """Whether a phrase names someone other than the user ("my wife's", "我老公", "孩子")."""
    if _CJK.search(text):
        return _someone_else().search(text) is not None
    return _readers()[0].lists.others.search(text.translate(_APOSTROPHES).casefold()) is not None


@cache
def _someone_else() -> re.Pattern[str]:
    """Someone other than the user as the subject: not after a preposition ("跟客户吃饭", "跟你说",
    "带孩子"), and a pronoun not inside a word ("其他", "吉他")."""
    phrases = "|".join(re.escape(p) for p in _lists()[1].others)
    return re.compile(rf"(?<![跟和给陪带对为替帮同其吉接送哄养])(?:{phrases})")


@cache
def _readers() -> tuple[_EnglishReader, _ChineseReader]:
    return _EnglishReader(), _ChineseReader()


def may_state(turn: str) -> bool:
    """False only when no span of the turn could be kept: it has no word of the user's own, no
    word of stance, and no subject-less opening a statement may have (English); Chinese is read
    whole, its words are substrings."""
    if _CJK.search(turn):
        return True
    english = _readers()[0].lists
    return english.may_state.search(turn.translate(_APOSTROPHES).casefold()) is not None


_INTRODUCING_ANYWHERE = re.compile(r"\bhere\b")


def lasting_statements(turn: str, whole_read: bool = False) -> list[str]:
    """The spans of a user's turn that state something lasting about the user, as written.
    `whole_read`: `turn_context(turn)` was None, so the whole-turn checks are not made again."""
    english, chinese = _readers()
    return chinese.spans(turn, whole_read) if _CJK.search(turn) else english.spans(turn, whole_read)


def unworded_statements(turn: str) -> list[str]:
    """The spans of a user's turn that nothing rules out as a lasting statement about the user (not
    a request, the task at hand, the moment, someone else), whether or not they hold a word of
    stance the lists know ("Gyms intimidate me", "蘑菇类的吃不惯"): the lasting model decides whether
    they say something lasting. Read as if the turn were neither pasted nor pretend: the caller
    checks `turn_context(turn)`."""
    english, chinese = _readers()
    if _CJK.search(turn):
        return chinese.spans(turn, True, needs_stance=False)
    return english.spans(turn, True, needs_stance=False)


MAX_NEWS = 280  # characters: a longer turn tells more than one change


@cache
def _news_openers() -> tuple[frozenset[str], tuple[str, ...]]:
    past = frozenset(w.casefold() for w in data_file("statements.json")["en"]["past_forms"])
    return past, tuple(data_file("restatements.json")["changes_told"]["zh_openers"])


_NEWS_FILLER = re.compile(
    r"^(?:(?:so|ok|okay|well|ugh|oh|lol|btw|fyi|update|news|big news|sad day|heads up|welp)\b[\s,.:!—–-]*)+"
)


def _own_news(turn: str) -> bool:
    """Whether a turn tells of the user: a word of their own, or (said without a subject) a verb in
    the past opening it ("sold the car last week") or, in Chinese, a time word ("上个月搬家了")."""
    past, openers = _news_openers()
    if _CJK.search(turn):
        chinese = _readers()[1].lists
        return any(w in turn for w in chinese.self_words) or turn.lstrip().startswith(openers)
    folded = turn.translate(_APOSTROPHES).casefold()
    if _I.search(folded) or re.search(r"(?<![\w'])(?:my|our|me|us)(?![\w'])", folded):
        return True
    first = _FIRST_WORD.match(_NEWS_FILLER.sub("", folded.lstrip()))
    # (a regular past: "traded it in", "switched phones")
    return first is not None and (first.group() in past or (len(first.group()) > 4 and first.group().endswith("ed")))


def news_of_change(turn: str) -> str | None:
    """A turn that only tells the user's news, a change among it ("sold the car last
    week, feels weird", "sorry typo, it's a 2018 Civic", "上个月把车卖了 挺舍不得的"):
    the turn as said. It is no lasting statement by itself (an event, a moment), but it may be what
    holds now of something remembered. None when any part of it asks or instructs, or is about
    someone else, or nothing in it tells a change. The caller looked first: `turn_context(turn)` was
    None and the turn has a word of change (`may_tell_a_change`)."""
    if len(turn) > MAX_NEWS or not _own_news(turn):
        return None
    english, chinese = _readers()
    spans = chinese.spans(turn, True, news=True) if _CJK.search(turn) else english.spans(turn, True, news=True)
    told = re.sub(r"[\W_]+", "", "".join(spans).casefold())
    if not spans or told != re.sub(r"[\W_]+", "", turn.translate(_APOSTROPHES).casefold()):
        return None
    if not any(tells_a_change(span) for span in spans):
        return None
    # a turn of the moment ("skipped breakfast today, starving now") tells of a change only with a
    # word that tells one as news ("passed away last night")
    if momentary(turn) or (passing(turn) and not any(tells_of_a_change_told(span) for span in spans)):
        return None
    return turn.strip()


# between two spans that continue each other: nothing but spaces and punctuation
_BETWEEN = re.compile(r"[\s.,;:!?…—–\-。，；：！？、]*")


CONTINUATION_PLACED = 0.35  # a span no area is at least this likely for continues the one beside it


def _about_no_area(span: str) -> bool:
    return float(area_model.probabilities(span).max()) < CONTINUATION_PLACED


def continued(turn: str, spans: list[str]) -> list[str]:
    """The spans of a turn, each one about no area in particular ("Non-negotiable.", "Tried it
    once, never again.", "Needles freak me out.") joined to the span right before it, or else right
    after it, as the turn has them: it continues that one, and on its own it would agree a little
    with every request. A span with no span beside it stays as it is."""
    if len(spans) < 2:
        return spans
    folded = turn.translate(_APOSTROPHES)
    places: list[tuple[int, int] | None] = []
    start = 0
    for span in spans:
        at = folded.find(span, start)
        places.append((at, at + len(span)) if at >= 0 else None)
        if at >= 0:
            start = at + len(span)

    def beside(a: tuple[int, int] | None, b: tuple[int, int] | None) -> bool:
        return a is not None and b is not None and _BETWEEN.fullmatch(folded, a[1], b[0]) is not None

    vague: dict[int, bool] = {}  # (each span placed once, and only when it is beside another)

    def about_no_area(i: int) -> bool:
        if i not in vague:
            vague[i] = _about_no_area(spans[i])
        return vague[i]

    groups: list[list[int]] = [[0]]
    for i in range(1, len(spans)):
        if beside(places[i - 1], places[i]) and (about_no_area(i) or (len(groups[-1]) == 1 and about_no_area(i - 1))):
            groups[-1].append(i)
        else:
            groups.append([i])
    out = []
    for group in groups:
        first, last = places[group[0]], places[group[-1]]
        out.append(spans[group[0]] if len(group) == 1 or first is None or last is None else turn[first[0] : last[1]])
    return out


def is_critical(statement: str) -> bool:
    """Safety-relevant: an allergy, a condition or its medication, a disability or access need, a
    hard never with consequences ("in recovery", "epilepsy")."""
    english, chinese = _lists()
    if _CJK.search(statement):
        return any(w in statement for w in chinese.critical)
    return english.critical.search(statement.translate(_APOSTROPHES).casefold()) is not None


def statement_hit(statement: str, at: datetime) -> Hit:
    """The record of an open statement: `preference.stated.<area>` (the area of life its words name
    most, `general` when none), or `health.stated.<area>` when it is safety-relevant — a special
    category, stored only because the user said it and used only in its areas. A statement bound
    in time ("no alcohol until Friday", "这周不吃甜的") ends then."""
    area = main_area(statement) or "general"
    root = "health.stated" if is_critical(statement) else "preference.stated"
    # ("no health insurance right now" holds for a while: beyond the session; "right now" alone
    # or "this time" is the moment, kept for the session)
    english = not _CJK.search(statement)
    temporal = not (english and _for_a_while(_lists()[0], statement.translate(_APOSTROPHES).casefold()))
    hit = Hit(STATEMENT_RULE, Kind.PREFERENCE, f"{root}.{area}", statement, confidence=0.9, temporal=temporal)
    until = time_bound(statement, at)
    if until is not None:
        hit.valid_from, hit.valid_until = at, until
    return hit


_WEEKDAYS_EN = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAYS_ZH = "一二三四五六日"
_UNTIL_DAY_EN = re.compile(
    r"\b(?:until|till|til|through|thru|before)\s+(?:next\s+)?(" + "|".join(_WEEKDAYS_EN) + r")\b"
)
_UNTIL_DAY_ZH = re.compile(r"(?:到|直到|在)?(?:下)?(?:周|星期|礼拜)([一二三四五六日天])(?:之前|前|为止)")
_NEXT_SPAN_EN = re.compile(r"\b(?:for|over)\s+the\s+next\s+(\d+|two|three|four|five|six|seven)\s+(day|week)s?\b")
_NEXT_SPAN_ZH = re.compile(r"接下来(?:的)?([\d一二三四五六七两]+)(天|周|个星期)")


def time_bound(statement: str, at: datetime) -> datetime | None:
    """When a statement says it ends: "this week", "this month", "until Friday", "for the next 3
    days", "这周", "这个月", "周五之前", "接下来三天". None: it does not say."""
    low = statement.translate(_APOSTROPHES).casefold()
    if re.search(r"\bthis\s+week\b", low) or any(w in statement for w in ("这周", "本周", "这个星期", "这礼拜")):
        return week_end(at)
    if re.search(r"\bthis\s+month\b", low) or any(w in statement for w in ("这个月", "本月")):
        return month_end(at)
    day = _UNTIL_DAY_EN.search(low)
    zh_day = _UNTIL_DAY_ZH.search(statement)
    if day or zh_day:
        weekday = (
            _WEEKDAYS_EN.index(day.group(1))
            if day
            else _WEEKDAYS_ZH.replace("天", "日").index(
                zh_day.group(1).replace("天", "日")  # type: ignore[union-attr]
            )
        )
        ahead = (weekday - at.weekday()) % 7 or 7
        return day_end(at + timedelta(days=ahead))
    span = _NEXT_SPAN_EN.search(low) or _NEXT_SPAN_ZH.search(statement)
    if span:
        n = to_int(span.group(1)) or 1
        unit = 7 if span.group(2) in ("week", "周", "个星期") else 1
        return day_end(at + timedelta(days=n * unit))
    return None


STATEMENT_RULE = "statement"


# "you are Sherlock Holmes", "be Gandalf": the assistant given a named part to play
_PLAYS = re.compile(
    r"(?:^|[.!?]\s+)(?i:you\s+are|you're|be)\s+(?:[A-Z][a-z]+)(?:\s+[A-Z][a-z]+)?\b(?!\s*[,.]?\s*(?i:right))"
    # "Be a tough negotiator selling me a used car", "Act like a support bot for a pizza place"
    r"|(?:^|[.!?]\s+)(?i:be|act\s+like|play)\s+(?i:a|an)\s+\w+(?:\s+\w+){0,2}\s+(?i:selling|for|who|that|at|in)\b"
    # "Play a stubborn car salesman.", "for acting class: play a doctor ..." (not "aiming to play a
    # Chopin nocturne": a sentence that opens with it)
    r"|(?:^|[.!?:]\s*)(?i:play)\s+(?i:a|an)\s+\w"
)


def refers_to_material(sentence: str) -> bool:
    """A sentence about material at hand ("上面那段改成正式一点", "make the above more formal"):
    what it names is that material, not something of the user's."""
    english, chinese = _readers()
    if _CJK.search(sentence):
        return any(w in sentence for w in chinese.lists.material)
    return english.lists.material.search(sentence.translate(_APOSTROPHES).casefold()) is not None


def turn_context(turn: str) -> str | None:
    """What a whole turn is, where that rules out any lasting memory from it: `pasted` (it carries
    material someone else wrote: a CV, a transcript, reviews, user stories), `pretend` (a
    role-play or a hypothetical), else None."""
    english, chinese = _readers()
    if _CJK.search(turn):
        sentences = re.split(r"(?<=[。！？!?])\s*|\n+", turn)
        if any(w in turn for w in chinese.lists.hypothetical) or _ZH_ROLE.match(turn):
            return "pretend"
        if _pasted(turn, chinese.lists.pasted, sentences[0]):
            return "pasted"
        # words in the first person quoted in a turn that asks for work or asks about them, the
        # user saying nothing of themself outside the quotes ("写一个HTML表单，选项有"我吃素""我什么都吃"")
        if _ZH_QUOTED_FIRST_PERSON.search(turn):
            rest = _ZH_QUOTED_FIRST_PERSON.sub(" ", turn)
            clauses = [c.strip() for c in _ZH_CLAUSES.split(rest) if c.strip()]
            asks = any(chinese.is_request(c, n == 0) for n, c in enumerate(clauses))
            if asks and not _ZH_SELF_OUTSIDE.search(rest):
                return "pasted"
        return None
    folded = turn.translate(_APOSTROPHES)
    sentences = re.split(r"(?<=[.!?])\s+|\n+", _QUOTED.sub(" ", folded))
    found = _english_context(english, folded, sentences, plays=True)
    if found is None and english._introduces_material(re.split(r"(?<=[.!?])\s+|\n+", folded)[0]):
        return "pasted"  # ("Translate this to French: 'Thank you for …'": the quote is the material)
    if found is None and _QUOTED_FIRST_PERSON.search(folded):
        # (unless the user speaks of themself outside the quotes: "I'm allergic to peanuts. My
        # sister always says "I could never …", can you suggest a snack?")
        rest = _QUOTED_FIRST_PERSON.sub(" ", folded)
        low = rest.casefold()
        # (the user's "my" beside the quotes is the work's owner: "write unit tests for my allergy checker")
        if (english.instructs(rest) or english.lists.code.search(low)) and not _I.search(low):
            return "pasted"
    return found


def _english_context(english: _EnglishReader, folded: str, sentences: list[str], plays: bool = False) -> str | None:
    low = folded.casefold()
    if (
        english.lists.hypothetical.search(low)
        or english.lists.character.search(low)
        or (plays and _PLAYS.search(folded))
    ):
        return "pretend"
    if _pasted(folded, english.lists.pasted, sentences[0]) or english._introduces_material(sentences[0]):
        return "pasted"
    return None


def passing(text: str) -> bool:
    """Text that speaks of the moment ("I'm exhausted today", "on a train", "现在在机场", "for
    tomorrow's quiz"): an instruction in it holds for the session, not beyond."""
    return _moment(text, times=True, events=True)


def momentary(text: str, events: bool = True) -> bool:
    """A sentence whose facts about the user are of the moment, a situation ("I'm sitting in the
    dentist's waiting room", "开了一天会") or, with `events`, an event at hand ("I'm preparing for
    Friday's quiz"): not kept. A word of time alone ("I'm UTC+2 right now") is not enough, nor a
    situation that is a habit ("I mostly read your replies on my phone")."""
    return _moment(text, times=False, events=events)


_ZH_THIS_TIME = frozenset({"这次", "这一次", "这回", "本次"})


def said_of_the_moment(text: str) -> bool:
    """A sentence with a word of the moment ("today", "tonight", "今天") and nothing of a habit or a
    while ("I hate everything about today lol", "我今天已经喝了四杯咖啡"): what a family reads in it
    is of the moment too, unless it is safety-relevant ("I'm allergic to peanuts, what can I eat
    today?")."""
    english, chinese = _readers()
    # ("this time", "这次" scope what they say to the session instead: "This time I want a window seat")
    if _CJK.search(text):
        zh = chinese.lists
        moment = any(w in text for w in zh.times if w not in _ZH_THIS_TIME)
        return moment and not _ZH_HABIT.search(text) and not is_critical(text)
    low = text.translate(_APOSTROPHES).casefold()
    en = english.lists
    # ("right now" says where a goal stands as often as the moment: "on number 87 right now")
    words = [m.group() for m in en.times.finditer(low) if m.group() not in en.for_a_while and m.group() != "this time"]
    if not words or is_critical(low):
        return False
    return not (en.outlasts_the_moment.search(low) or en.habit.search(low))


def _moment(text: str, times: bool, events: bool) -> bool:
    english, chinese = _readers()
    if _CJK.search(text):
        zh = chinese.lists
        situation = any(w in text for w in zh.transient) and not any(w in text for w in zh.habit)
        return (
            situation or (events and any(w in text for w in zh.events)) or (times and any(w in text for w in zh.times))
        )
    low = text.translate(_APOSTROPHES).casefold()
    en = english.lists
    if en.state.search(low) is not None:
        return True
    situation = en.transient.search(low) is not None and not en.habit.search(low)
    return situation or (events and en.events.search(low) is not None) or (times and en.times.search(low) is not None)


# "再短一点" (shorter again) is about the last answer; "再也不" (never again) is lasting, and
# "先给例子再讲原理" (first an example, then the theory) is an order, and "再好吃…也不去" (however
# good) a concession
_ZH_AGAIN = re.compile(r"^(?!.*先.*再)(?:.*[^先])?再(?!也|见)(?![^，,。！!？?]*也)")


def _asks_for_content(turn: str, chinese: bool) -> bool:
    """The turn asks a question of content ("what's the difference?", "有啥区别"): an instruction
    on how to answer in the same turn is about that answer."""
    english, zh = _readers()
    if chinese:
        return any(
            zh.is_request(clause.strip(), False) and not clause.strip().startswith(zh.lists.request)
            for clause in _ZH_CLAUSES.split(turn)
            if clause.strip()
        )
    lists = english.lists
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", turn.translate(_APOSTROPHES)):
        low = _LEAD.sub("", sentence).casefold().strip()
        if low.endswith("?") and not lists.request.match(low):
            return True
        # a question without its mark ("what's the difference between x and y, short answer"), or
        # content asked for ("draft a reminder to a client. answer in Portuguese please"), by its
        # name too ("Tweet announcing our new hours. Upbeat, under 280 characters.")
        unmarked = lists.question.match(low) and not (lists.request.match(low) or lists.conditional.match(low))
        asked = _ASKING.sub("", low)
        if unmarked or lists.content_verb.match(asked) or lists.deliverable.match(asked):
            return True
    return False


_ZH_ASKS = re.compile(r"[?？]|吗|呢|怎么|咋|啥|什么|哪|如何|有没有|推荐|建议|帮我|给我|想给[他她]|给[他她]买|送[他她]")


def asks_about_someone(sentence: str, turn: str) -> bool:
    """The sentence opens with someone else as its subject ("my friend Leo hates surprises", "我姐是
    纯素食者") and the turn asks for something: it sets up a request about them, it does not say
    anything lasting of the user."""
    if _CJK.search(sentence):
        first = _ZH_CLAUSES.split(sentence.strip(), maxsplit=1)[0]
        opens = any(first.startswith(p) for p in _lists()[1].others if len(p) > 1)
        return opens and (bool(_ZH_ASKS.search(turn)) or _asks_for_content(turn, True))
    low = _LEAD.sub("", sentence.translate(_APOSTROPHES)).strip()
    if not (OTHERS.match(low) or _readers()[0].lists.bare_relation.match(low.casefold())):
        return False
    return "?" in turn or _EN_ASKS.search(turn.casefold()) is not None or _asks_for_content(turn, False)


# a clause that asks, without its question mark ("..., what can we do at home")
_EN_ASKS = re.compile(
    r"(?:^|[,;:.—–-]\s*)(?:what|how|which|where|who|any|should|can|could|would|do|does|ideas|suggest|recommend|help)\b"
)


# "can you write a short story about ...": the request itself, for the instruction it carries
_ASKING = re.compile(r"^(?:can|could|would|will)\s+you\s+(?:please\s+)?")


def one_off(sentence: str, turn: str) -> bool:
    """An instruction about the answer at hand, not a lasting preference: it refers to what was
    just said or is being asked ("say it again but shorter", "keep it under 80 words", "上面那段改成
    正式一点", "再短一点"), is a bare content instruction ("explain step by step", "详细说说"), or
    comes with a question in the same turn ("有啥区别，讲清楚点"). A word of stance or of lasting
    ("I prefer", "我喜欢", "from now on") makes it lasting whatever else it says."""
    english, chinese = _readers()
    if _CJK.search(sentence):
        lists = chinese.lists
        if any(w in sentence for w in lists.stance) or LASTING.search(sentence):
            return False
        if _ZH_AGAIN.search(sentence) or any(w in sentence for w in (*lists.one_off, *lists.material)):
            return True
        verb = next((v for v in lists.content_verbs if v in sentence), None)
        if verb is not None and not any(o in sentence for o in lists.generic_objects):
            return True
        return _asks_for_content(turn, True)
    low = _ASKING.sub("", _LEAD.sub("", sentence.translate(_APOSTROPHES)).casefold().strip())
    el = english.lists
    if el.stance.search(low) or LASTING.search(low):
        return False
    if el.one_off.search(low) or el.material.search(low) or el.content_verb.match(low):
        return True
    return _asks_for_content(turn, False)


# an instruction about answers in general names the user, or all answers ("keep answers short")
_EN_GENERAL = re.compile(
    r"(?<![\w'])(?:i|i'm|im|i've|i'd|my|answers|replies|responses|explanations"
    r"|(?:per|each|every|any)\s+(?:answer|reply|response|explanation))(?![\w'])"
)
_ZH_GENERAL = ("我", "回答", "回复")


def bare_instruction(sentence: str) -> bool:
    """An instruction on how to answer that names neither the user, nor answers or things in
    general, nor a time beyond now ("give the answer first, then the reasoning", "cut it down to
    100 words", "under 100 words, please", "控制在一百字以内", "分步骤说明"): about the answer at
    hand. A lasting one says so ("I prefer ...", "keep answers short", "max 50 words per reply",
    "from now on", "以后", "我习惯")."""
    english, chinese = _readers()
    if LASTING.search(sentence):
        return False
    if _CJK.search(sentence):
        lists = chinese.lists
        return not any(w in sentence for w in (*_ZH_GENERAL, *lists.stance, *lists.generic_objects))
    low = _ASKING.sub("", _LEAD.sub("", sentence.translate(_APOSTROPHES)).casefold().strip())
    el = english.lists
    first = _FIRST_WORD.match(low)
    if first is None or first.group(0) not in el.imperatives | el.constraint_openers or el.stance.search(low):
        return False
    return _EN_GENERAL.search(low) is None and el.generic.search(low) is None
