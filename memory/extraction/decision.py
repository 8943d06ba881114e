"""Project decisions: `knowledge.decision.<topic slug>` when the sentence names a topic, else
`knowledge.decision`; project knowledge, so project-scoped whenever the turn has a project.

The patterns and word lists are in `memory/data/families/decision.toml`; here are the readers that
turn a choice and its topic into the attribute and the value."""

from __future__ import annotations

import re
from collections.abc import Callable

from ..models import Kind
from .family import Family, Hit
from .markers import PROJECT
from .spec import Reader, Spec
from .text import _NEG_EN, _NEG_ZH, Pattern, clean, slugify

SPEC = Spec("decision")
_LABEL_EN = SPEC.expressions["label_en"]
_LABEL_ZH = SPEC.expressions["label_zh"]
_GENERIC_TOPIC = SPEC.expressions["generic_topic"]
_ZH_TRAILING_VERB = SPEC.expressions["zh_trailing_verb"]
_EN_ASIDE = SPEC.expressions["en_aside"]
_ZH_INNER = SPEC.expressions["zh_inner"]
_ZH_INNER_DO = SPEC.expressions["zh_inner_do"]
_ZH_NOT_A_DECISION = SPEC.expressions["zh_not_a_decision"]
_LEISURE = SPEC.expressions["leisure"]
_NOT_A_CHOICE_EN = SPEC.expressions["not_a_choice_en"]
_WEAK_EN = SPEC.expressions["weak_en"]
_MEETING = SPEC.expressions["meeting"]
_OUR_SIDE_ZH = SPEC.expressions["our_side_zh"]
_PROJECT_WORDS = SPEC.expressions["project_words"]
_TECHISH = SPEC.expressions["techish"]
_MARKER_EN = SPEC.expressions["marker_en"]
_CONTENT_LEAD_EN = SPEC.expressions["content_lead_en"]
_MARKER_ZH = SPEC.expressions["marker_zh"]
_CONTENT_LEAD_ZH = SPEC.expressions["content_lead_zh"]
_NOT_A_WORK_TOPIC_ZH = SPEC.expressions["not_a_work_topic_zh"]
_ZH_TOPIC_GATE = SPEC.expressions["zh_topic_gate"]
_NOT_MINE = SPEC.expressions["not_mine"]
_TRIGGER = SPEC.expressions["trigger"]
_STOP_VERBS = SPEC.maps["stop_verbs"]


def _decision(value: str, topic: str | None) -> tuple[str, str] | None:
    v = clean(PROJECT.sub("", value))
    v = clean(_EN_ASIDE.sub("", v))
    if not v or _LEISURE.search(v) or (topic and _LEISURE.search(topic)):
        return None
    t = clean(topic) if topic else ""
    t = _GENERIC_TOPIC.sub("", t) if t else ""
    t = re.sub(r"^(?:the|our|this)\s+", "", t, flags=re.I)
    if not t and not v.isascii():
        inner = _ZH_INNER.match(v) or _ZH_INNER_DO.match(v)
        if inner and not _GENERIC_TOPIC.fullmatch(inner.group("t")):
            t, v = inner.group("t"), clean(inner.group("v"))
        elif inner:  # "继续用MySQL": no topic, the tool is the value
            v = clean(inner.group("v"))
    v = clean(_ZH_TRAILING_VERB.sub("", v))
    if not v or _ZH_NOT_A_DECISION.match(v) or re.search(r"目标|梦想|心愿", v):
        return None
    if not t:
        m = (_LABEL_EN if re.match(r"[A-Za-z]", v) else _LABEL_ZH).match(v)
        if m and len(m.group(1).strip()) >= 2 and (v.isascii() or not m.group(1).isascii()):
            t = m.group(1)
    slug = slugify(t) if t else ""
    return (f"knowledge.decision.{slug}" if slug else "knowledge.decision"), v


def decision_attribute(value: str | None, topic: str | None) -> str:
    """The attribute a decision with this value / topic would land in (retractions name it)."""
    found = _decision(value or topic or "", topic)
    return found[0] if found else "knowledge.decision"


def _decision_en(m: re.Match[str]) -> tuple[str, str] | None:
    value, topic = _EN_ASIDE.sub("", m.group("v")), m.groupdict().get("t")
    if _NOT_A_CHOICE_EN.match(value.strip()):
        return None
    weak = bool(_WEAK_EN.search(m.string[: m.start("v")]))
    split = re.match(r"^(.*?)\s+(?:for|as)\s+(?:the\s+|our\s+|this\s+)?(.+)$", value, re.I)
    if (
        split
        and not PROJECT.fullmatch(" ".join(split.group(0).split()[-3:]))
        and not re.fullmatch(r"(?:this\s+)?(?:project|repo|now|the\ project|good|real|sure)", split.group(2), re.I)
    ):
        value, topic = split.group(1), topic or re.split(r"[,;]", split.group(2))[0]
    if weak and not topic and not re.search(r"(?-i:\b[A-Z][\w.+#-]*)", value):
        return None  # "we'll be using the conference room at 3"
    return _decision(value, topic)


def _we_decided_zh(m: re.Match[str]) -> bool:
    before = re.split(r"[，,。；;：:！!]", m.string[: m.start()])[-1]
    before = re.sub(r"^(?:谢谢|好的|嗯|对了|另外|所以|然后|那|那就)+", "", before)
    if _OUR_SIDE_ZH.match(before):
        return True
    return bool(re.match(r"(?:就)?(?:采用|使用|用|选|上|走|按|改用|换成)", m.group("v")))  # "接口方案决定用B": a topic


def _decision_zh_topic(m: re.Match[str]) -> tuple[str, str] | None:
    """A loose verb ("选了", "定了", "就用") counts only after a real topic ("数据库最后选了 Postgres")."""
    if re.search(r"我$", m.string[: m.start("t")]) or re.match(r"的|我(?!们)", m.group("t")):
        return None  # "我浏览器用的是Edge", "我的闹钟定在六点": the user's own things, not the project's
    verb = m.string[m.end("t") : m.start("v")]
    if re.search(r"只用", verb) and not re.search(r"我们|团队|大家", verb):
        return None  # "听歌我只用正版", "网购只用京东": how the user lives, not a decision of the team's
    topic = _GENERIC_TOPIC.sub("", clean(m.group("t")))
    if len(topic) < 2 or re.search(
        r"[我你他她它]|自己|^把|^将|答案|版本|^的|心愿|梦想|目标|打算|^(?:以后|今后|之后|现在|目前|今天|明天|这次)$|这次|以后|今后|从现在|每次|回答|回复|说话|讲解|解释",
        topic,
    ):
        return None
    return _decision(m.group("v"), topic)


# --- the general shapes (any subject the user speaks for, a choice verb in any tense, or a sentence
# that says a choice was made next to what was chosen) ------------------------------------------------


def _mine_en(m: re.Match[str]) -> tuple[str, str] | None:
    """ "I chose Notion as our wiki": the user's own choice counts when it is about the work."""
    found = _decision_en(m)
    if found is None:
        return None
    text = m.string
    if _PROJECT_WORDS.search(text) or PROJECT.search(text) or _TECHISH.search(m.group("v")):
        return found
    return None


def _marker_decision_en(text: str) -> tuple[str, str] | None:
    clauses = [c.strip() for c in re.split(r"\s*(?:[,;:]|\s[—–-]\s)\s*", text) if c.strip()]
    if len(clauses) < 2:
        return None
    marked = [i for i, c in enumerate(clauses) if _MARKER_EN.match(c)]
    if not marked:
        return None
    rest = [c for i, c in enumerate(clauses) if i not in marked]
    if not rest:
        return None
    content = rest[0]
    if re.match(r"(?i)(?:what|which|who|how|why|should|shall|do|does|did|is|are|can|could)\b", content):
        return None
    if re.match(r"(?i)(?:he|she|they|his|her|their|my\s+(?:friend|wife|husband|brother|sister|mom|dad))\b", content):
        return None
    value = _CONTENT_LEAD_EN.sub("", content).strip()
    split = re.match(
        r"(?i)^(?:our|the)\s+(?P<t>[\w\-]+(?:\s+[\w\-]+)?)\s+(?:will\s+be|is|is\s+going\s+to\s+be)\s+(?P<v>.+)$", value
    )
    if split:
        return _decision(split.group("v"), split.group("t"))
    split = re.match(r"(?i)^(?P<v>.+?)\s+for\s+(?:the\s+|our\s+)?(?P<t>[\w\-]+(?:\s+[\w\-]+){0,2})$", value)
    if split and not re.search(r"(?i)\b(?:now|good|this\s+year|the\s+time\s+being|a\s+while)$", split.group("t")):
        return _decision(split.group("v"), split.group("t"))
    return _decision(value, None)


def _marker_decision_zh(text: str) -> tuple[str, str] | None:
    clauses = [c.strip() for c in re.split(r"[，,：:；;]", text) if c.strip()]
    if len(clauses) < 2:
        return None
    marked = [i for i, c in enumerate(clauses) if _MARKER_ZH.match(c)]
    rest = [c for i, c in enumerate(clauses) if i not in marked]
    if not marked or not rest:
        return None
    content = rest[0]
    if re.search(r"[吗呢？?]$|什么|怎么|哪|要不要|是否", content) or re.match(r"(?:他|她|他们|她们|别人)", content):
        return None
    topic_first = re.match(
        r"^(?P<t>[\u4e00-\u9fffA-Za-z0-9 ]{2,10}?)(?:我们|团队|大家|我)?(?:最终|最后|还是|就|也|都)*"
        r"(?:用|采用|选|选了|走|上|定|定为|定在)\s*(?P<v>.+)$",
        content,
    )
    if topic_first and not _GENERIC_TOPIC.fullmatch(topic_first.group("t")):
        found = _decision_zh_topic(topic_first)
        if found:
            return found
    value = _CONTENT_LEAD_ZH.sub("", content).strip()
    return _decision(value, None) if value else None


def _switched_zh(m: re.Match[str]) -> tuple[str, str] | None:
    """ "我们CI换成GitHub Actions了", "后端迁到Rust": a change of what the work uses (not "改成英文", a preference)."""
    topic = m.group("t")
    we = bool(topic and re.match(r"(?:我们|团队|大家)", topic))
    if topic:
        topic = _GENERIC_TOPIC.sub("", topic)
    if topic and (_NOT_A_WORK_TOPIC_ZH.search(topic) or len(topic) < 2):
        topic = None
    if (
        not topic
        and not we
        and m.group("who") not in ("我们", "团队", "大家")
        and not (m.group("who") in ("，", ",") and re.search(r"我们|团队|大家", m.string[: m.start()]))
    ):
        return None
    return _decision(m.group("v"), topic)


def _decided(m: re.Match[str], value: int | str, topic: int | str | None = None) -> tuple[str, str] | None:
    return _decision(m.group(value), m.group(topic) if topic is not None else None)


def _decided_unless_a_clause(m: re.Match[str], value: int | str) -> tuple[str, str] | None:
    """ "X it is", not "what it is": the value is a name, not a clause."""
    if re.search(r"(?i)\b(?:is|was|are|it|what)\b", m.group(value)):
        return None
    return _decision(m.group(value), None)


def _stopped(m: re.Match[str]) -> tuple[str, str] | None:
    """ "We're dropping the weekly report": the verb of stopping kept with what is stopped."""
    verb = m.group("verb")
    return _decision(_STOP_VERBS.get(verb.casefold(), verb) + " " + m.group("v"), None)


def _zh_topic_or_meeting(m: re.Match[str]) -> tuple[str, str] | None:
    """ "数据库定了：Postgres", or "会上定了：…" (the meeting is not the topic)."""
    return _decision_zh_topic(m) or (_decision(m.group("v"), None) if _MEETING.match(m.group("t")) else None)


def _we_decided(m: re.Match[str]) -> tuple[str, str] | None:
    return _decision(m.group("v"), None) if _we_decided_zh(m) else None


def _switched_en(m: re.Match[str]) -> tuple[str, str] | None:
    """ "We switched the CI to GitHub Actions": by the team, or by the user with a topic of the work."""
    topic = m.group("t") or m.group("t2")
    if (_mine_en(m) is not None and topic) or re.match(r"(?i)\s*(?:we|the\s+team|our\s+team)", m.group(0)):
        return _decision(m.group("v"), topic)
    return None


def _mine_with_verb(m: re.Match[str]) -> tuple[str, str] | None:
    """ "We're going to build the admin tool in-house": the verb kept with what it is about."""
    return _mine_en(m) and _decision(m.group("verb") + " " + m.group("v"), None)


def _mine_against(m: re.Match[str]) -> tuple[str, str] | None:
    """ "We're not renewing the Heroku contract": deciding against, the negation kept."""
    return _mine_en(m) and _decision("not " + m.group("verb") + " " + m.group("v"), None)


def _unified_zh(m: re.Match[str]) -> tuple[str, str] | None:
    """ "代码格式统一用Prettier": a topic unless it is a person or a time."""
    topic = m.group("t")
    if topic and not re.search(r"[我你他她]|^(?:以后|今后|团队|我们|大家)$", topic):
        return _decision(m.group("v"), topic)
    return _decision(m.group("v"), None)


def _finally_zh(m: re.Match[str]) -> tuple[str, str] | None:
    """ "管理后台最终用Django", "我最后用Tauri": a topic, or the user's side as the subject."""
    found = _decision_zh_topic(m)
    if found:
        return found
    subject = m.group("t") or ""
    if re.fullmatch(r"(?:我们|团队|大家|我|[^，,]*了)", subject) or re.search(r"(?:我们|团队|大家|我)$", subject):
        return _decision(m.group("v"), None)
    return None


def _with_verb_zh(m: re.Match[str]) -> tuple[str, str] | None:
    """ "我们正式放弃支持Python 2": the verb kept with what it is about."""
    return _decision(m.group("verb") + m.group("v"), None)


def _kept_zh(m: re.Match[str]) -> tuple[str, str] | None:
    """ "还是维持现在的方案"."""
    return _decision("维持" + m.group("v"), None)


_READERS: dict[str, Reader] = {
    "decision": _decided,
    "decision_unless_a_clause": _decided_unless_a_clause,
    "decision_en": _decision_en,
    "decision_zh_topic": _decision_zh_topic,
    "mine_en": _mine_en,
    "stopped": _stopped,
    "zh_topic_or_meeting": _zh_topic_or_meeting,
    "we_decided_zh": _we_decided,
    "switched_en": _switched_en,
    "mine_with_verb": _mine_with_verb,
    "mine_against": _mine_against,
    "switched_zh": _switched_zh,
    "unified_zh": _unified_zh,
    "finally_zh": _finally_zh,
    "with_verb_zh": _with_verb_zh,
    "kept_zh": _kept_zh,
}


def _not_negated(
    get: Callable[[re.Match[str]], tuple[str, str] | None],
) -> Callable[[re.Match[str]], tuple[str, str] | None]:
    """Negation counts only before the decided value ("we didn't pick X"), not inside it ("GraphQL, not REST")."""

    def checked(m: re.Match[str]) -> tuple[str, str] | None:
        if re.search(r"把[^，,。]*$", m.string[: m.start()]):
            return None  # "把需求文档定下来": an action, not a decision made
        head = m.string[: m.start("v")]
        head = re.split(r"[,;:，；：。]", head)[-1]
        if _NEG_EN.search(head) or _NEG_ZH.search(head):
            return None
        return get(m)

    return checked


def _gate_for(p: Pattern) -> re.Pattern[str] | None:
    src = p.rx.pattern.lstrip()
    if not (
        src.startswith("(?P<t>[\\u4e00")
        or src.startswith("(?P<who>")
        or src.startswith("^(?P<t>[\\u4e00")
        or src.startswith("(?P<v>")
        or src.startswith("^(?P<v>[\\u4e00")
    ):
        return None
    return _ZH_TOPIC_GATE


# Deciding against something: the negation is the decision (not wrapped in `_not_negated`)
_DECISIONS = [
    Pattern(p.rx, _not_negated(p.value), True, p.gate or _gate_for(p))
    for table in ("decisions", "general_en", "general_zh")
    for p in SPEC.table(table, _READERS)
] + [Pattern(p.rx, p.value, True) for p in SPEC.table("against", _READERS)]


def _decision_hit(value: tuple[str, str], match: re.Match[str]) -> Hit:
    attribute, decided = value
    return Hit("decision", Kind.KNOWLEDGE, attribute, decided, confidence=0.85, project_default=True)


def _marker_fallback(text: str) -> tuple[tuple[str, str], re.Match[str]] | None:
    zh_text = bool(re.search(r"[\u4e00-\u9fff]", text))
    found = _marker_decision_zh(text) if zh_text else _marker_decision_en(text)
    if not found:
        return None
    m = re.match(r".*", text, re.S)
    assert m is not None
    return found, m


DECISION = Family(
    "decision",
    Kind.KNOWLEDGE,
    "knowledge.decision",
    _DECISIONS,
    build=_decision_hit,
    trigger=_TRIGGER,
    guard=_NOT_MINE,
    fallback=_marker_fallback,
    fallback_needs=(_MARKER_EN, _MARKER_ZH),  # a clause that says a choice was made
)
