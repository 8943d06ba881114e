"""Extraction: a conversation turn -> proposed records and commands (pure, deterministic).

`RuleExtractor` understands a fixed set of English and Chinese phrasings (see `RULES` below and the
module tests). It never reads a clock (time comes from the turn's `at`), never does I/O, and for a
sentence it does not understand it yields nothing rather than a guess. An LLM extractor can plug in
behind the same `Extractor` protocol; whatever it returns goes through the same validation.

What it emits per understood sentence:
- a record proposal: a dict in the `RecordIn` wire format (authority `user_explicit`, evidence
  quoting the redacted sentence, `observed_at` = the turn's time, no `id`: the engine derives it),
  with `link_current=True` when the user explicitly corrects or changes the value ("actually …",
  "不对，…", "改成…", "I moved to …", a standalone "that was wrong." before it) or restates the
  lasting slot ("from now on …", "以后…": an explicit instruction for the slot going forward, which
  DESIGN rule 3 would otherwise park as pending_review next to the old value); the extraction
  processor then looks up the current record of that slot and sets `corrects`. Only single-valued
  slots are linked: a multi-valued one (goals, confirm-before rules) has no one current record and
  simply adds;
- or a command proposal (`forget` with a `match` on attribute and, when given, value).

Rules it keeps (DESIGN.md section 2):
- rule 5: "this time / just this once / 这次 / 本次" (or wording about the current item, "this
  question", "a short answer", "这道题") gives a `session:<id>` record living
  `registry.TEMPORARY_LIFETIME`; with no session on the turn it gives nothing (never widened to
  global) and `refused` gets "temporary_without_session". "from now on / always / 以后 / 今后", or no
  marker at all, gives the lasting record (global, or `project:<id>` when the sentence says "in this
  project / 这个项目", which without a project on the turn gives nothing and
  "project_scope_without_project"). Decisions are project knowledge: `project:<id>` whenever the
  turn has a project, else global.
- rule 7: a sentence with a secret in it yields nothing and `refused` gets "secret_value"; every
  quote and statement kept is redacted, and so is `Extraction.redacted_text`.
- an assistant's (or system) turn never becomes an assertion: the extraction is empty.

Attribute choices (the registry's names where it has them):
- answer detail and short/long wording -> `preference.response.detail` = "concise" | "detailed"
  (one slot, so "short" later corrected to "detailed" lands in the same place); a quantitative
  limit ("under 100 words", "三句话") -> `preference.response.length` = "3 sentences" /
  "at most 100 words".
- language -> `preference.language` = "English" | "Chinese" | "Japanese" | ...
- "example first" / "theory first" -> `preference.explanation_style`; "conclusion first" ->
  `preference.response.order`.
- home city -> `profile.home_city` (the city as written); timezone -> `profile.timezone`
  ("UTC+8", "PST", "Asia/Shanghai"; 东八区/北京时间 -> "UTC+8").
- expertise -> `profile.expertise` = beginner | intermediate | advanced | expert when no domain is
  named, `profile.expertise.<domain-slug>` (e.g. `profile.expertise.python`) when one is, so each
  domain is its own single-valued slot.
- goals -> kind goal, `goal.main` (the registry's `goal.` family is multi-valued: goals add up;
  forgetting "my goals" matches the one attribute); value = the goal phrase.
- time-boxed priorities -> `priority.focus`, valid from the turn's time until the end of the
  period: "this week / 本周 / 这周" -> Monday 00:00 UTC of the next ISO week, "today / 今天" ->
  next midnight UTC, "this month / 本月" -> the 1st of next month, "next week / 下周" and
  "tomorrow / 明天" -> that period; "for now / 目前" -> the registry's default lifetime. Priority
  proposals in a turn that puts something on hold ("put A on hold", "A 先停一下") are linked to
  the current focus.
- collaboration rules -> `rule.confirm_before` = the action ("send to the client", "发给客户").
- project decisions -> `knowledge.decision.<topic-slug>` when the sentence names a topic ("API
  design B" -> `knowledge.decision.api_design`, "接口方案采用版本 B" ->
  `knowledge.decision.接口方案`, "we chose X for the database" -> `knowledge.decision.database`),
  otherwise `knowledge.decision` (one single-valued slot: a second, unlinked decision waits for
  review rather than silently standing next to the first).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from .errors import Reason
from .limits import MAX_TURN_CHARS
from .models import OP_ID_RE, SCOPE_ID_RE, Cardinality, Kind, iso, wire_id, wire_time
from .registry import TEMPORARY_LIFETIME, resolve
from .secrets import redact, refusal_spans
from .validation import derive_id

__all__ = [
    "REFUSED_NO_PROJECT",
    "REFUSED_NO_SESSION",
    "REFUSED_SECRET",
    "Extraction",
    "Extractor",
    "Proposal",
    "RuleExtractor",
    "Turn",
    "day_end",
    "month_end",
    "split_sentences",
    "week_end",
]

REFUSED_SECRET = Reason.SECRET_VALUE.value  # "secret_value"
REFUSED_NO_SESSION = "temporary_without_session"
REFUSED_NO_PROJECT = "project_scope_without_project"


# --- interface ----------------------------------------------------------------------------


class Turn(BaseModel):
    """One conversation turn as it arrives on the turns topic (event time in `at`)."""

    model_config = ConfigDict(extra="ignore")

    tenant: str
    user: str
    session: str | None = None
    project: str | None = None
    role: Literal["user", "assistant", "system"] = "user"
    text: str
    at: datetime
    # The processor sets it (e.g. topic/partition/offset); without one a hash of the turn stands in.
    turn_id: str | None = None

    @field_validator("at", mode="before")
    @classmethod
    def _time(cls, v: Any) -> Any:
        return wire_time(v)

    @field_validator("tenant", mode="before")
    @classmethod
    def _tenant(cls, v: Any) -> Any:
        return wire_id(v, Reason.MISSING_TENANT)

    @field_validator("user", mode="before")
    @classmethod
    def _user(cls, v: Any) -> Any:
        return wire_id(v, Reason.MISSING_USER)

    @field_validator("session", "project", mode="before")
    @classmethod
    def _scope_id(cls, v: Any) -> Any:
        if v is not None and (not isinstance(v, str) or not SCOPE_ID_RE.fullmatch(v)):
            raise PydanticCustomError(
                Reason.INVALID_SCOPE.value,
                "a session or project id is 1..128 characters without whitespace, braces or |",
            )
        return v

    @field_validator("turn_id", mode="before")
    @classmethod
    def _turn_id(cls, v: Any) -> Any:
        if v is not None and (not isinstance(v, str) or not OP_ID_RE.fullmatch(v)):
            raise PydanticCustomError(Reason.INVALID_ID.value, "a turn id is 1..256 printable characters")
        return v

    @field_validator("text")
    @classmethod
    def _text(cls, v: str) -> str:
        if len(v) > MAX_TURN_CHARS:
            raise PydanticCustomError(Reason.TOO_LARGE.value, f"text: {len(v)} characters, at most {MAX_TURN_CHARS}")
        return v

    def source_id(self) -> str:
        return self.turn_id or derive_id("turn_", self.tenant, self.user, iso(self.at), self.text)


class Proposal(BaseModel):
    """Either a record (RecordIn wire dict) or a command dict, never both."""

    record: dict[str, Any] | None = None
    command: dict[str, Any] | None = None
    # True when the user explicitly corrects/changes the value: link to the slot's current record.
    link_current: bool = False
    rule: str = ""  # which rule produced it (audit, tests)

    @model_validator(mode="after")
    def _one(self) -> Proposal:
        if (self.record is None) == (self.command is None):
            raise ValueError("a proposal is exactly one of record or command")
        return self


class Extraction(BaseModel):
    items: list[Proposal] = Field(default_factory=list)
    refused: list[str] = Field(default_factory=list)  # reason codes, each once, in order
    redacted_text: str = ""

    @property
    def records(self) -> list[dict[str, Any]]:
        return [p.record for p in self.items if p.record is not None]

    @property
    def commands(self) -> list[dict[str, Any]]:
        return [p.command for p in self.items if p.command is not None]


@runtime_checkable
class Extractor(Protocol):
    def extract(self, turn: Turn) -> Extraction: ...


# --- time windows (event time, UTC) -------------------------------------------------------


def _midnight(at: datetime) -> datetime:
    return at.replace(hour=0, minute=0, second=0, microsecond=0)


def week_end(at: datetime) -> datetime:
    """Monday 00:00 UTC of the ISO week after the one containing `at`."""
    return _midnight(at) - timedelta(days=at.weekday()) + timedelta(days=7)


def day_end(at: datetime) -> datetime:
    return _midnight(at) + timedelta(days=1)


def month_end(at: datetime) -> datetime:
    first = _midnight(at).replace(day=1)
    return first.replace(year=first.year + 1, month=1) if first.month == 12 else first.replace(month=first.month + 1)


# --- sentences ----------------------------------------------------------------------------

_HARD_STOPS = "。！？；!?;\n"
_TRAIL = "。！？；!?;.…"


@dataclass(frozen=True, slots=True)
class Sentence:
    start: int
    end: int
    text: str  # stripped, with its terminator
    question: bool


def split_sentences(text: str) -> list[Sentence]:
    """EN . ! ? ; and ZH 。！？； (and newlines). A '.' ends a sentence only before whitespace/end."""
    out: list[Sentence] = []
    n, i, start = len(text), 0, 0

    def emit(a: int, b: int) -> None:
        seg = text[a:b]
        stripped = seg.strip()
        if not stripped:
            return
        lead = len(seg) - len(seg.lstrip())
        tail = stripped.rstrip(_TRAIL + " ")
        question = "?" in stripped[len(tail) :] or "？" in stripped[len(tail) :] or bool(re.search(r"[吗么]\s*$", tail))
        out.append(Sentence(a + lead, a + lead + len(stripped), stripped, question))

    while i < n:
        ch = text[i]
        if ch in _HARD_STOPS or (ch == "." and (i + 1 == n or text[i + 1].isspace())):
            j = i + 1
            while j < n and text[j] in _TRAIL:
                j += 1
            emit(start, j)
            start = i = j
            continue
        i += 1
    emit(start, n)
    return out


# --- regex helpers ------------------------------------------------------------------------


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_CLAUSE_BREAK = _rx(
    r"[,，、:：()（）]|\s[-–—]\s|\bbut\b|\band\b|\binstead\b|\bwhile\b|但是|可是|而是|不过|而且|并且|同时"
)
_NEG_EN = _rx(
    r"\b(?:not|never|no|no longer|don'?t|do not|doesn'?t|does not|didn'?t|won'?t|isn'?t|aren'?t|"
    r"wasn'?t|can'?t|cannot|needn'?t|stop|neither|nor)\b"
)
_NEG_ZH = re.compile(r"不(?!管|论|对|错|过|仅|但|久|少|同|断)|别(?!人|的)|没有|没|无需|甭|并非")


def _clause(text: str, start: int, end: int) -> str:
    a = 0
    for m in _CLAUSE_BREAK.finditer(text, 0, start):
        a = m.end()
    m2 = _CLAUSE_BREAK.search(text, end)
    b = m2.start() if m2 else len(text)
    return text[a:b]


def _negated(text: str, m: re.Match[str]) -> bool:
    clause = _clause(text, m.start(), m.end())
    return bool(_NEG_EN.search(clause) or _NEG_ZH.search(clause))


Value = Any
Getter = Callable[[re.Match[str]], Value]


@dataclass(frozen=True, slots=True)
class _P:
    rx: re.Pattern[str]
    value: Value | Getter
    neg_ok: bool = False  # the negation is part of the pattern's meaning ("don't be so verbose")


def _scan(patterns: list[_P], text: str) -> tuple[Value, re.Match[str]] | None:
    for p in patterns:
        for m in p.rx.finditer(text):
            if not p.neg_ok and _negated(text, m):
                continue
            v = p.value(m) if callable(p.value) else p.value
            if v:
                return v, m
    return None


_EN_FILLER = _rx(
    r"(?:\s*[,;:.!]*\s*\b(?:please|now|instead|then|first|as well|too|again|thanks|thank you|ok|okay|"
    r"this week|today|tonight|this month|next week|tomorrow|for now|right now|from now on|going forward|"
    r"for the time being|at the moment|for the rest of the (?:week|day)|from here on|by default|"
    r"always|anymore|any more)\b\s*[,;:.!]*)+$"
)
_ZH_TAIL = re.compile(r"(?:[了吧啊呢哦呀嘛啦的哈]|就好|就行|即可|一下|一点|可以吗|好吗|谢谢|先|上)+$")
_ZH_TIME = re.compile(
    r"这周|本周|这个星期|这星期|本星期|这礼拜|这个礼拜|今天|今日|今晚|本月|这个月|下周|下个星期|下礼拜|明天|"
    r"目前|眼下|当前|现阶段|暂时|这几天|以后|今后|从现在开始|从现在起"
)


def _clean(value: str) -> str:
    v = unicodedata.normalize("NFKC", value).strip()
    v = v.strip(" \t\"'“”‘’「」『』《》<>`")
    for _ in range(3):
        before = v
        v = _EN_FILLER.sub("", v).strip()
        v = v.rstrip(" ,，。.!！?？;；:：、…").strip()
        v = _ZH_TAIL.sub("", v).strip()
        if v == before:
            break
    return v.strip(" \t\"'“”‘’「」『』《》<>`")


def _slug(text: str, limit: int = 40) -> str:
    t = unicodedata.normalize("NFKC", text).casefold().strip()
    t = t.replace("c++", "cpp").replace("c#", "csharp").replace("f#", "fsharp").replace(".net", "dotnet")
    t = re.sub(r"[^\w]+", "_", t).strip("_")
    return t[:limit].strip("_")


_EN_NUMBERS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "fifty": 50,
    "hundred": 100,
    "a hundred": 100,
    "a few": 3,
    "a couple of": 2,
    "a couple": 2,
}
_ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_ZH_UNITS = {"十": 10, "百": 100, "千": 1000}


def _to_int(token: str) -> int | None:
    t = unicodedata.normalize("NFKC", token).strip().casefold()
    if t.isdigit():
        return int(t)
    if t in _EN_NUMBERS:
        return _EN_NUMBERS[t]
    total, digit = 0, None
    for ch in t:
        if ch in _ZH_DIGITS:
            digit = _ZH_DIGITS[ch]
        elif ch in _ZH_UNITS:
            total += (1 if digit is None else digit) * _ZH_UNITS[ch]
            digit = None
        else:
            return None
    total += digit or 0
    return total or None


# --- markers ------------------------------------------------------------------------------

_TEMP = _rx(
    r"\b(?:this time|just this once|only this once|just once|this once|for this (?:answer|question|reply|"
    r"response|one|task|conversation|chat|session|request)|in this (?:answer|reply|response|conversation|chat|"
    r"session)|for now|for the moment|right now)\b|这次|这一次|本次|这回|此次|这一回|临时|暂时|这个会话|本会话|"
    r"当前会话|这轮|这一轮"
)
_LASTING = _rx(
    r"\b(?:from now on|from here on(?: out)?|going forward|moving forward|in (?:the )?future|always|"
    r"henceforth|every time|by default|permanently|for good|all the time|from this point(?: on)?)\b|"
    r"以后|今后|从现在开始|从现在起|从今以后|从今往后|往后|之后都|一直|每次|默认|永远|始终|长期"
)
# Wording about the item at hand ("explain this question in detail", "a short answer", "这道题")
# is a current-request instruction, not a lasting preference (seed 000: "请详细说说这一题").
_CURRENT_ITEM = _rx(
    r"^(?:please\s+|now\s+|ok,?\s+|okay,?\s+)?(?:explain|describe|summari[sz]e|tell me about|walk me through|write|"
    r"translate|solve|review|analy[sz]e|compare|define)\s+(?!(?:the|your|all|each)\s+(?:reasoning|steps|work|working|"
    r"derivations?|logic|thought process)\b|(?:in|with|more|everything|things|stuff|answers?|it all|"
    r"concisely|briefly|clearly|thoroughly|fully|step)\b)[a-z]|"
    r"\b(?:this|that|these|those)\s+(?:question|problem|one|exercise|task|part|step|function|code|bug|"
    r"error|issue|topic|case|example|email|message|answer|point)s?\b|"
    r"\b(?:explain|describe|elaborate on|walk me through|answer|summari[sz]e)\s+(?:this|that|it|these|those)\b|"
    r"\b(?:a|an|the)\s+(?:short|brief|concise|quick|detailed|long|longer|thorough|in-depth)\s+"
    r"(?:answer|response|reply|explanation|summary)\b|"
    r"这一?[题道段部节]|这道题|这个问题|这题|这里|这部分|这段|这个(?:函数|代码|错误|报错|例子|概念|问题)|这封|刚才"
)
_PROJECT = _rx(
    r"\b(?:in|for|on|within|across)\s+(?:this|the current|our)\s+(?:project|repo|repository|codebase)\b|"
    r"(?:这个|本|当前|该|此)项目"
)
_CORRECTION = _rx(
    r"\b(?:actually|correction|i was wrong|i misspoke|i meant|let me correct|scratch that|"
    r"(?:'s|is|was|were)\s+(?:wrong|incorrect|not right|a mistake|outdated)|"
    r"not anymore|no longer|anymore|instead|switch(?:ed)?\s+(?:back\s+)?to|change\s+(?:it\s+|that\s+)?to|"
    r"(?:i've|i have|i)\s+(?:just\s+|recently\s+)?(?:moved|relocated))\b|"
    r"不对|不是的|错了|说错|更正|纠正|改成|改为|换成|改用|换用|其实|应该是|我的意思是|搬到|搬去|搬家|不再"
)
_LEAD_CORRECTION = _rx(
    r"^(?:(?:no|nope)\s*[,.:!—–-]+\s*|(?:wait|sorry|oops|actually|correction|rather)\b\s*[,.:!—–-]*\s*|"
    r"(?:不对|不是的|错了|说错了|更正(?:一下)?|纠正(?:一下)?|其实)\s*[，,:：。！!]*\s*)+"
)
_LEAD_NO = _rx(r"^(?:no|nope)\s*[,.!—–-]")
# "Put A on hold" / "A 先停一下": a priority given in the same turn replaces the current one.
_HOLD = _rx(
    r"\bput\b.{0,40}\bon hold\b|\bpause\b|\bstop (?:working on|doing)\b|\bdeprioriti[sz]e\b|"
    r"先停一下|先停|暂停|先放一放|先放一下|放一放|先不(?:做|管|处理|搞)|搁置"
)
_QUESTION_OK = _rx(r"^(?:can|could|would|will) you\b|^please\b|^(?:你)?(?:能不能|能否|可不可以|可以|能|麻烦|请)")


# --- rule families ------------------------------------------------------------------------


@dataclass(slots=True)
class _Hit:
    rule: str
    kind: Kind
    attribute: str
    value: Any
    confidence: float = 0.9
    temporal: bool = False  # "this time" may scope it to the session (preferences, rules)
    current_item: bool = False  # its wording points at the request at hand
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    project_default: bool = False  # project knowledge: project scope whenever the turn has one
    change: bool = False  # the wording itself states a change (moved, switch to, 改成)


# answer detail: one slot, "concise" | "detailed" ---------------------------------------------

_DETAIL = [
    # the negation is the meaning
    _P(
        _rx(
            r"\b(?:don'?t|do not|never|stop)\s+(?:be\s+|being\s+)?(?:so\s+|too\s+|that\s+)?(?:verbose|wordy|long[- ]winded|rambling)\b"
        ),
        "concise",
        True,
    ),
    _P(
        _rx(
            r"\bno need for (?:so much |much |long |lengthy |all the |the )?(?:detail|details|explanations?|elaboration)\b"
        ),
        "concise",
        True,
    ),
    _P(
        _rx(
            r"\b(?:don'?t|do not)\s+(?:need|want)\s+(?:so much |much |a lot of |lots of |all the |the |long )?(?:detail|details|explanations?)\b"
        ),
        "concise",
        True,
    ),
    _P(_rx(r"\bnot so (?:long|verbose|wordy|detailed)\b|\bless (?:verbose|wordy)\b"), "concise", True),
    _P(
        _rx(
            r"\b(?:don'?t|do not|never|stop)\s+(?:be\s+|being\s+)?(?:so\s+|too\s+|that\s+)?(?:brief|terse|curt|short)\b|\bnot so (?:brief|short|terse)\b"
        ),
        "detailed",
        True,
    ),
    _P(
        re.compile(
            r"(?:别|不要|不用|不必|无需|不需要)(?:再)?(?:写|说|讲|回答)?(?:得)?(?:太|那么|这么|过于)?(?:啰嗦|啰唆|冗长|长篇大论|详细|展开|长)"
        ),
        "concise",
        True,
    ),
    _P(
        re.compile(r"(?:别|不要|不用)(?:再)?(?:写|说|讲|回答)?(?:得)?(?:太|那么|这么|过于)?(?:简短|简略|简单|短)"),
        "detailed",
        True,
    ),
    # plain
    _P(
        _rx(
            r"\b(?:short|shorter|brief|briefer|concise|succinct|terse|compact|crisp|to[- ]the[- ]point)\s+(?:\w+\s+){0,2}?"
            r"(?:answers?|responses?|replies|reply|explanations?|ones|output|summaries)\b"
        ),
        "concise",
    ),
    _P(
        _rx(
            r"\b(?:answer|reply|respond|explain|keep(?:\s+(?:it|things|them|your\s+\w+|the\s+\w+|answers?|responses?|replies))?)"
            r"\s+(?:\w+\s+)?(?:briefly|concisely|succinctly|to the point|(?:short|brief|concise|succinct|tight)"
            r"(?=\s*(?:$|[,.;!?)]|(?:please|from now on|going forward|this time|for now|and|always|thanks|again|now)\b)))"
        ),
        "concise",
    ),
    _P(
        _rx(
            r"\bbe\s+(?:more\s+|very\s+)?(?:brief|concise|succinct|terse)\b|\b(?:less|fewer)\s+(?:detail|details|words|text)\b"
        ),
        "concise",
    ),
    _P(
        _rx(
            r"\b(?:detailed|thorough|in[- ]depth|comprehensive|longer|elaborate|fuller)\s+(?:\w+\s+){0,2}?"
            r"(?:answers?|responses?|replies|reply|explanations?|ones|walkthroughs?)\b"
        ),
        "detailed",
    ),
    _P(
        _rx(
            r"\bin (?:more |full |great |much more |greater )?detail\b|\b(?:answer|reply|respond|explain|write|go|describe|cover)\s+"
            r"(?:\w+\s+){0,2}?(?:thoroughly|in depth|at length|fully)\b"
        ),
        "detailed",
    ),
    _P(
        _rx(
            r"\b(?:explain|show|include|give|walk (?:me )?through|spell out|lay out|write out|write down)\s+(?:me\s+)?"
            r"(?:the\s+|your\s+|all\s+the\s+|each\s+|every\s+)?(?:full\s+|whole\s+|complete\s+)?"
            r"(?:reasoning|derivations?|steps|work|working|thought process|logic)\b|\bstep[- ]by[- ]step\b"
        ),
        "detailed",
    ),
    _P(re.compile(r"简短|简洁|简明|简要|精简|简练|短一[点些]|短点|言简意赅|长话短说|少说废话|少废话"), "concise"),
    _P(
        re.compile(
            r"详细(?!地址|的地址|资料|清单|名单)|详尽|具体一?[点些]|(?:写|讲|说)(?:得)?清楚|(?:推导|推理|计算|解题)(?:过程|步骤)|"
            r"展开(?:讲|说|解释|来)|一步一步|一步步|逐步|分步骤?"
        ),
        "detailed",
    ),
]


def _r_detail(text: str, at: datetime) -> list[_Hit]:
    found = _scan(_DETAIL, text)
    if not found:
        return []
    return [_Hit("detail", Kind.PREFERENCE, "preference.response.detail", found[0], temporal=True)]


# answer length: quantitative limits ------------------------------------------------------------

_UNITS_EN = {
    "word": "words",
    "sentence": "sentences",
    "line": "lines",
    "paragraph": "paragraphs",
    "bullet": "bullet points",
    "bullet point": "bullet points",
    "point": "points",
    "character": "characters",
}
_UNITS_ZH = {
    "句": "sentences",
    "句话": "sentences",
    "字": "characters",
    "个字": "characters",
    "行": "lines",
    "段": "paragraphs",
    "段话": "paragraphs",
    "个要点": "points",
    "要点": "points",
    "条": "points",
    "点": "points",
}
_NUM_EN = r"(\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|fifty|a hundred|hundred|a few|a couple of|a couple)"
_NUM_ZH = r"(\d+|[一二两三四五六七八九十百千]+)"


def _len_en(m: re.Match[str]) -> str | None:
    n = _to_int(m.group(2))
    unit = _UNITS_EN.get(m.group(3).casefold().rstrip("s"))
    if not n or not unit:
        return None
    exact = m.group(1).casefold().strip() in ("in", "use", "using")
    return f"{n} {unit}" if exact else f"at most {n} {unit}"


def _len_zh(m: re.Match[str]) -> str | None:
    n = _to_int(m.group(2))
    unit = _UNITS_ZH.get(m.group(3))
    if not n or not unit:
        return None
    exact = not (m.group(1) and m.group(1) not in ("用", "在")) and not m.group(4)
    return f"{n} {unit}" if exact else f"at most {n} {unit}"


_LENGTH = [
    _P(
        _rx(
            r"\b(in|use|using|within|under|at most|no more than|less than|fewer than|max(?:imum)?(?: of)?|up to|"
            r"keep (?:it|them|answers?|responses?|replies) (?:to|under|within|at))\s+"
            + _NUM_EN
            + r"\s+(words?|sentences?|lines?|paragraphs?|bullet points?|bullets?|points?|characters?)\b"
        ),
        _len_en,
    ),
    _P(
        re.compile(
            r"(用|在|控制在|不超过|不要超过|别超过|最多|少于|限制在)\s*"
            + _NUM_ZH
            + r"\s*(句话|句|个字|字|行|段话|段|个要点|要点|条)\s*(以内|之内|内)?"
        ),
        _len_zh,
        True,
    ),
    _P(re.compile(r"()" + _NUM_ZH + r"\s*(句话|句|个字|字|行|段话|段|个要点|要点|条)\s*(以内|之内|内)"), _len_zh),
    _P(
        re.compile(
            r"()" + _NUM_ZH + r"\s*(句话|句|个字|字|段话|段)\s*()(?=(?:来|就)?(?:回答|说完|讲完|概括|总结|说明|讲清楚))"
        ),
        _len_zh,
    ),
]


def _r_length(text: str, at: datetime) -> list[_Hit]:
    found = _scan(_LENGTH, text)
    if not found:
        return []
    return [_Hit("length", Kind.PREFERENCE, "preference.response.length", found[0], temporal=True)]


# language -------------------------------------------------------------------------------------

_LANGS = {
    "english": "English",
    "chinese": "Chinese",
    "mandarin": "Chinese",
    "simplified chinese": "Chinese",
    "traditional chinese": "Traditional Chinese",
    "japanese": "Japanese",
    "korean": "Korean",
    "french": "French",
    "german": "German",
    "spanish": "Spanish",
    "中文": "Chinese",
    "汉语": "Chinese",
    "普通话": "Chinese",
    "简体中文": "Chinese",
    "简体": "Chinese",
    "繁体中文": "Traditional Chinese",
    "繁体": "Traditional Chinese",
    "英文": "English",
    "英语": "English",
    "日语": "Japanese",
    "日文": "Japanese",
    "韩语": "Korean",
    "韩文": "Korean",
    "法语": "French",
    "法文": "French",
    "德语": "German",
    "德文": "German",
    "西班牙语": "Spanish",
}
_LANG_EN = r"(simplified chinese|traditional chinese|english|chinese|mandarin|japanese|korean|french|german|spanish)"
_LANG_ZH = r"(简体中文|繁体中文|中文|汉语|普通话|简体|繁体|英文|英语|日语|日文|韩语|韩文|法语|法文|德语|德文|西班牙语)"
_ZH_END = r"(?=$|[，,。！!？?；;\s]|吧|吗|呢|啊|哦|就好|就行|就可以|好吗|可以吗|谢谢|吧)"
_NOT_A_LANGUAGE = (
    r"(?!\s+(?:food|people|culture|history|names?|characters?|version|text|translation|class|classes|course|"
    r"exam|lessons?|restaurants?|friends?|speakers?|tea|cuisine|words?|movies?|books?|songs?)\b)"
)


def _lang(group: int) -> Getter:
    def get(m: re.Match[str]) -> str | None:
        return _LANGS.get(m.group(group).casefold())

    return get


def _lang_zh_use(m: re.Match[str]) -> str | None:
    # "我会用英语" (I can use English) / "在学说英语" describe the user, not how to answer
    if re.search(r"我\S{0,3}?(?:会|能|在学|学习|学会|学)\s*$", m.string[: m.start()]):
        return None
    return _LANGS.get(m.group(1))


_LANGUAGE = [
    _P(
        _rx(
            r"\b(?:answer|reply|respond|write|speak|talk|explain|communicate|chat|converse|text)\b"
            r"(?:\s+(?:to\s+me|me|back|everything|all|always|only|please|from now on|going forward|this time))*\s+in\s+"
            + _LANG_EN
            + r"\b"
            + _NOT_A_LANGUAGE
        ),
        _lang(1),
    ),
    _P(
        _rx(
            r"\b(?:use|switch(?:\s+back)?\s+to|stick\s+(?:to|with)|prefer|change\s+(?:it\s+)?to|go\s+with)\s+(?:only\s+)?"
            + _LANG_EN
            + r"\b"
            + _NOT_A_LANGUAGE
        ),
        _lang(1),
    ),
    _P(_rx(r"(?:^|\b)(?:in\s+)?" + _LANG_EN + r"\s*,?\s*please\b"), _lang(1)),
    _P(
        _rx(r"\bin\s+" + _LANG_EN + r"\s+(?:from now on|going forward|only|by default|always|this time|for now)\b"),
        _lang(1),
    ),
    _P(_rx(r"\b(?:from now on|going forward|always|by default|this time)\s*,?\s+in\s+" + _LANG_EN + r"\b"), _lang(1)),
    _P(
        re.compile(
            r"(?:用|使用|改用|换成|换用|改成|改为|切换(?:到|成)|以)\s*"
            + _LANG_ZH
            + r"\s*(?:来)?(?:回答|回复|答复|交流|沟通|对话|聊天?|解释|讲解|讲|说)?"
            + _ZH_END
        ),
        _lang_zh_use,
    ),
    _P(re.compile(r"(?:跟我|和我|对我|请|都|以后|今后|就)(?:说|讲)\s*" + _LANG_ZH + _ZH_END), _lang(1)),
    _P(re.compile(r"^(?:请|以后|今后)?(?:都)?" + _LANG_ZH + r"(?:回答|回复)"), _lang(1)),
]


def _r_language(text: str, at: datetime) -> list[_Hit]:
    found = _scan(_LANGUAGE, text)
    if not found:
        return []
    return [_Hit("language", Kind.PREFERENCE, "preference.language", found[0], temporal=True)]


# explanation style and order ------------------------------------------------------------------

_EXAMPLE = r"(?:an?\s+|some\s+)?(?:concrete\s+|small\s+|simple\s+|runnable\s+|working\s+|code\s+)*(?:examples?|samples?|sample code)"
_STYLE = [
    _P(
        _rx(
            r"\b(?:examples?|code examples?|sample code|"
            + _EXAMPLE
            + r")\s+(?:first|before\s+(?:the\s+)?(?:theory|explanation|concepts?|principles?))\b"
        ),
        "example first",
    ),
    _P(_rx(r"\b(?:start|begin|lead|open)\s+with\s+" + _EXAMPLE + r"\b"), "example first"),
    _P(
        _rx(r"\b(?:show|give)\s+(?:me\s+)?" + _EXAMPLE + r"\s+(?:first|before)\b|\bexamples?[- ]first\b"),
        "example first",
    ),
    _P(
        _rx(
            r"\b(?:theory|principles?|concepts?|the why)\s+(?:first|before\s+(?:the\s+)?examples?)\b|"
            r"\b(?:start|begin|lead)\s+with\s+(?:the\s+)?(?:theory|concepts?|principles?)\b|"
            r"\bexplain\s+the\s+(?:concept|theory|principle)s?\s+(?:first|before)\b"
        ),
        "theory first",
    ),
    _P(
        re.compile(
            r"先(?:给|举|看|上|来|写|放|讲)?(?:我)?(?:一个|个|几个|一些)?(?:可运行的|具体的|简单的)?(?:小)?(?:代码)?"
            r"(?:例子|示例|样例|实例|案例)|示例优先|例子优先|先示例"
        ),
        "example first",
    ),
    _P(re.compile(r"先(?:讲|说|解释|介绍)?(?:原理|理论|概念)(?:再|后|，再|,再)"), "theory first"),
]
_ORDER = [
    _P(
        _rx(
            r"\b(?:the\s+)?(?:conclusion|bottom line|summary|tl;?dr|short answer)\s+first\b|"
            r"\b(?:lead|start|begin|open)\s+with\s+(?:the\s+)?(?:conclusion|bottom line|answer|summary|tl;?dr)\b"
        ),
        "conclusion first",
    ),
    _P(re.compile(r"先(?:说|给|讲|看|写|下)?结论|结论先行|结论放(?:在)?(?:最)?前(?:面)?"), "conclusion first"),
]


def _r_style(text: str, at: datetime) -> list[_Hit]:
    out = []
    found = _scan(_STYLE, text)
    if found:
        out.append(_Hit("explanation_style", Kind.PREFERENCE, "preference.explanation_style", found[0], temporal=True))
    found = _scan(_ORDER, text)
    if found:
        out.append(_Hit("order", Kind.PREFERENCE, "preference.response.order", found[0], temporal=True))
    return out


# home city --------------------------------------------------------------------------------------

_CITY_EN = r"([A-Z][\w'\-]*(?:\s+(?:[A-Z][\w'\-]*|de|del|da|am|upon|on|la|le)){0,3})"
_CITY_ZH = r"([\u4e00-\u9fffA-Za-z·]{2,12}?)"
_ZH_CITY_END = r"(?=了|啦|呢|啊|吧|住|生活|工作|定居|上班|这边|那边|[，,。！!？?；;、\s]|$)"
_NOT_A_PLACE = re.compile(
    r"公司|新家|家里|房子|宿舍|办公室|楼|这|那|附近|隔壁|对面|一个|一家|学校|酒店|宾馆|朋友|父母|我|你|他|她|医院"
)
_NOT_A_CITY_EN = {"the", "a", "an", "my", "our", "this", "that", "it", "here", "there", "i"}


def _city_en(group: int) -> Getter:
    def get(m: re.Match[str]) -> str | None:
        city = m.group(group).strip()
        words = city.split()
        while words and words[-1].casefold() in ("de", "del", "da", "am", "upon", "on", "la", "le"):
            words.pop()
        if not words or words[0].casefold() in _NOT_A_CITY_EN:
            return None
        return " ".join(words)

    return get


def _city_zh(m: re.Match[str]) -> str | None:
    city = _clean(m.group(1))
    if len(city) > 2 and city.endswith("市"):
        city = city[:-1]
    if len(city) < 2 or _NOT_A_PLACE.search(city):
        return None
    return city


_HOME = [
    _P(
        re.compile(
            r"(?i:\bI(?:'ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+|now\s+)?(?:moved|relocated)\s+)"
            r"(?:(?i:from)\s+" + _CITY_EN + r"\s+)?(?i:(?:back\s+)?to\s+)" + _CITY_EN
        ),
        _city_en(2),
    ),
    _P(
        re.compile(
            r"(?i:\bI(?:'m|\s+am)?\s+(?:now\s+|currently\s+|still\s+|actually\s+|really\s+|also\s+)*(?:live|living|based|residing|reside|located|settled)\s+"
            r"(?:now\s+)?in\s+)" + _CITY_EN
        ),
        _city_en(1),
    ),
    _P(re.compile(r"(?i:\bmy\s+(?:home\s*city|city|home)\s+is\s+(?:now\s+)?(?:in\s+)?)" + _CITY_EN), _city_en(1)),
    _P(
        re.compile(
            r"我(?:现在|目前|已经|刚|刚刚|最近|如今|今年|去年)?(?:已经|刚)?(?:搬到|搬去|搬家到|搬回|搬回到|迁到|定居(?:在|到|于)?|"
            r"住在|居住在|生活在|常住(?:在)?)(?:了)?\s*" + _CITY_ZH + _ZH_CITY_END
        ),
        _city_zh,
    ),
    _P(re.compile(r"我(?:现在|目前)?(?:在|于)" + _CITY_ZH + r"(?:住|生活|定居|安家)"), _city_zh),
    _P(re.compile(r"我(?:的)?家在" + _CITY_ZH + _ZH_CITY_END), _city_zh),
]
_MOVE = _rx(r"\b(?:moved|relocated)\b|搬到|搬去|搬家|搬回|迁到")


def _r_home(text: str, at: datetime) -> list[_Hit]:
    found = _scan(_HOME, text)
    if not found:
        return []
    return [
        _Hit("home_city", Kind.PREFERENCE, "profile.home_city", found[0], change=bool(_MOVE.search(found[1].group(0))))
    ]


# timezone -----------------------------------------------------------------------------------------

_TZ_ABBR = (
    r"(?:PST|PDT|PT|EST|EDT|ET|CST|CDT|CT|MST|MDT|MT|CET|CEST|BST|GMT|UTC|JST|KST|IST|HKT|SGT|AEST|AEDT|WET|EET|EEST)"
)
_TZ = (
    r"((?:UTC|GMT)\s*[+\-−]\s*\d{1,2}(?::?\d{2})?|[A-Z][a-z]+/[A-Z][A-Za-z_]+(?:/[A-Z][A-Za-z_]+)?|" + _TZ_ABBR + r")\b"
)
_ZH_TZ = (
    r"((?:东|西)[一二三四五六七八九十]{1,2}区|北京时间|零时区|中时区|(?:UTC|GMT)\s*[+\-−]\s*\d{1,2}(?::?\d{2})?|"
    + _TZ_ABBR
    + r")"
)


def _norm_tz(raw: str) -> str | None:
    t = unicodedata.normalize("NFKC", raw).strip().replace("−", "-")
    m = re.fullmatch(r"(?:UTC|GMT)\s*([+\-])\s*(\d{1,2})(?::?(\d{2}))?", t, re.I)
    if m:
        hours, minutes = int(m.group(2)), m.group(3)
        if hours > 14 or (minutes and int(minutes) >= 60):
            return None
        return f"UTC{m.group(1)}{hours}" + (f":{minutes}" if minutes and minutes != "00" else "")
    m = re.fullmatch(r"([东西])([一二三四五六七八九十]{1,2})区", t)
    if m:
        n = _to_int(m.group(2))
        if not n or n > 12:
            return None
        return f"UTC{'+' if m.group(1) == '东' else '-'}{n}"
    if t in ("北京时间",):
        return "UTC+8"
    if t in ("零时区", "中时区") or t.upper() in ("UTC", "GMT"):
        return "UTC"
    if "/" in t:
        return t
    return t.upper()


def _tz(group: int) -> Getter:
    return lambda m: _norm_tz(m.group(group))


_TIMEZONE = [
    _P(re.compile(r"(?i:\btime\s?zone\b(?:\s+is(?:\s+now)?|\s*[:=]|\s+to)?)\s*" + _TZ), _tz(1)),
    _P(
        re.compile(
            r"(?i:\bI(?:'m|\s+am)\s+(?:now\s+|currently\s+)?(?:in|on|using)\s+(?:the\s+)?)"
            + _TZ
            + r"(?i:(?:\s+time(?:\s?zone)?)?)"
        ),
        _tz(1),
    ),
    _P(re.compile(r"时区\s*(?:是|为|改成|改为|换成|设为|设成|[:：])?\s*" + _ZH_TZ), _tz(1)),
    _P(re.compile(r"我(?:现在|目前)?(?:在|用|按|使用)\s*" + _ZH_TZ), _tz(1)),
]


def _r_timezone(text: str, at: datetime) -> list[_Hit]:
    found = _scan(_TIMEZONE, text)
    if not found:
        return []
    return [_Hit("timezone", Kind.PREFERENCE, "profile.timezone", found[0])]


# expertise ----------------------------------------------------------------------------------------

_LEVELS = {
    "beginner": "beginner",
    "novice": "beginner",
    "newbie": "beginner",
    "noob": "beginner",
    "junior": "beginner",
    "intermediate": "intermediate",
    "advanced": "advanced",
    "experienced": "advanced",
    "seasoned": "advanced",
    "senior": "advanced",
    "proficient": "advanced",
    "expert": "expert",
    "pro": "expert",
    "新手": "beginner",
    "初学者": "beginner",
    "小白": "beginner",
    "菜鸟": "beginner",
    "新人": "beginner",
    "入门者": "beginner",
    "中级": "intermediate",
    "老手": "advanced",
    "资深": "advanced",
    "熟手": "advanced",
    "熟悉": "advanced",
    "很熟": "advanced",
    "擅长": "advanced",
    "专家": "expert",
    "高手": "expert",
    "大牛": "expert",
    "行家": "expert",
    "精通": "expert",
    "不熟": "beginner",
    "不太熟": "beginner",
    "不熟悉": "beginner",
    "不太熟悉": "beginner",
}
_NO_DOMAIN = {
    "this",
    "that",
    "it",
    "here",
    "this stuff",
    "all this",
    "things",
    "the field",
    "the topic",
    "这个",
    "这方面",
    "这",
    "这块",
    "这一块",
    "方面",
}
_ROLE = r"(?:developer|programmer|engineer|user|learner|student|coder|designer|data scientist|analyst|researcher|dev)"
_DOMAIN_EN = r"([A-Za-z0-9+#.][\w+#.\-]*(?:\s+[\w+#.\-]+){0,3}?)"
_LEVEL_NOUN = r"(beginner|novice|newbie|noob|expert|pro)"
_LEVEL_ADJ = r"(beginner|novice|intermediate|advanced|expert|experienced|senior|junior|seasoned)"
_MODIFIER = r"(?:(?:complete|total|absolute|real|true|bit of an?|bit of a|relative|pretty|very|quite)\s+)*"


def _expertise(level_group: int | str, domain_group: int | None) -> Getter:
    def get(m: re.Match[str]) -> tuple[str, str | None] | None:
        level = _LEVELS.get(m.group(level_group).casefold()) if isinstance(level_group, int) else level_group
        if not level:
            return None
        domain = None
        if domain_group is not None and m.group(domain_group):
            domain = _clean(m.group(domain_group))
            domain = re.sub(r"^(?:the|a|an)\s+", "", domain, flags=re.I)
            domain = re.sub(r"的$", "", domain)
            if domain.casefold() in _NO_DOMAIN or not _slug(domain):
                domain = None
        return level, domain

    return get


_EXPERTISE = [
    _P(
        _rx(
            r"\bI(?:'m|\s+am)\s+(?:an?\s+)?"
            + _MODIFIER
            + _LEVEL_NOUN
            + r"\b(?:\s+(?:in|at|with|on)\s+"
            + _DOMAIN_EN
            + r"(?=$|[,.;!?]|\s+(?:and|but)\b))?"
        ),
        _expertise(1, 2),
    ),
    _P(
        _rx(
            r"\bI(?:'m|\s+am)\s+(?:an?\s+)?"
            + _MODIFIER
            + _LEVEL_ADJ
            + r"\s+(?:([\w+#.]+(?:\s+[\w+#.]+)?)\s+)??"
            + _ROLE
            + r"\b"
        ),
        _expertise(1, 2),
    ),
    _P(
        _rx(
            r"\bI(?:'m|\s+am)\s+(?:an?\s+)?"
            + _MODIFIER
            + r"([A-Z][\w+#.]*(?:\s+[A-Z][\w+#.]*)?)\s+"
            + _LEVEL_NOUN
            + r"\b"
        ),
        _expertise(2, 1),
    ),
    _P(
        _rx(
            r"\bI(?:'m|\s+am)\s+(?:completely\s+|totally\s+|very\s+|pretty\s+|quite\s+|fairly\s+|really\s+|still\s+)?new\s+to\s+"
            + _DOMAIN_EN
            + r"(?=$|[,.;!?]|\s+(?:and|but)\b)"
        ),
        _expertise("beginner", 1),
    ),
    _P(
        _rx(
            r"\bI(?:\s+have)?\s+(?:just|only just|recently)\s+(?:started|begun|began)\s+(?:learning|to learn|with|using)\s+"
            + _DOMAIN_EN
            + r"(?=$|[,.;!?]|\s+(?:and|but)\b)"
        ),
        _expertise("beginner", 1),
    ),
    _P(
        _rx(
            r"\bI(?:'m|\s+am)\s+(?:very\s+|highly\s+|quite\s+|pretty\s+)?(experienced|proficient|fluent|seasoned)\s+(?:in|with|at)\s+"
            + _DOMAIN_EN
            + r"(?=$|[,.;!?]|\s+(?:and|but)\b)"
        ),
        _expertise(1, 2),
    ),
    _P(
        re.compile(
            r"我(?:对|在)\s*([\w+#.\- ]{1,20}?)\s*(?:方面|上)?(?:还|比较|很|非常|特别)?(不太熟悉|不熟悉|不太熟|不熟)"
        ),
        _expertise(2, 1),
        True,
    ),
    _P(
        re.compile(
            r"我(?:是|算是|算)(?:一个|一名|个|名|纯|完全的|彻底的|纯纯的)*\s*([\w+#.\- ]{1,20}?)?\s*(?:的|方面的|领域的)?"
            r"(新手|初学者|小白|菜鸟|新人|入门者|专家|高手|老手|大牛|行家)"
        ),
        _expertise(2, 1),
    ),
    _P(
        re.compile(
            r"我(?:是|算是)?(?:一个|一名)?(中级|资深)\s*([\w+#.\- ]{1,20}?)?\s*(?:的)?(?:工程师|开发者|开发|程序员|用户|设计师|分析师)"
        ),
        _expertise(1, 2),
    ),
    _P(re.compile(r"我(?:刚|才|刚刚)(?:开始)?(?:学习?|接触|入门)\s*([\w+#.\- ]{1,20})"), _expertise("beginner", 1)),
    _P(re.compile(r"我(精通|擅长)\s*([\w+#.\- ]{1,20})"), _expertise(1, 2)),
    _P(re.compile(r"我对\s*([\w+#.\- ]{1,20}?)\s*(?:非常|很|比较|特别)?(熟悉|很熟|精通)"), _expertise(2, 1)),
]


def _r_expertise(text: str, at: datetime) -> list[_Hit]:
    found = _scan(_EXPERTISE, text)
    if not found:
        return []
    level, domain = found[0]
    attribute = "profile.expertise" + (f".{_slug(domain)}" if domain else "")
    return [_Hit("expertise", Kind.PREFERENCE, attribute, level, confidence=0.85)]


# collaboration rules: confirm before --------------------------------------------------------------

_GERUNDS = {
    "sending": "send",
    "publishing": "publish",
    "posting": "post",
    "paying": "pay",
    "deleting": "delete",
    "deploying": "deploy",
    "emailing": "email",
    "submitting": "submit",
    "buying": "buy",
    "booking": "book",
    "merging": "merge",
    "pushing": "push",
    "sharing": "share",
    "replying": "reply",
    "scheduling": "schedule",
    "ordering": "order",
    "purchasing": "purchase",
    "committing": "commit",
    "releasing": "release",
    "signing": "sign",
    "transferring": "transfer",
    "forwarding": "forward",
    "calling": "call",
    "contacting": "contact",
    "messaging": "message",
    "uploading": "upload",
    "running": "run",
    "making": "make",
    "changing": "change",
    "cancelling": "cancel",
    "canceling": "cancel",
    "accepting": "accept",
    "approving": "approve",
    "spending": "spend",
    "installing": "install",
}
_OBJECT_PRONOUN = _rx(r"^(\w+)\s+(?:it|them|this|that|anything|something|things|stuff|any of it)\b\s*")


_ACTIONS_EN = frozenset(
    set(_GERUNDS.values())
    | {
        "send",
        "publish",
        "post",
        "pay",
        "delete",
        "deploy",
        "email",
        "submit",
        "buy",
        "book",
        "merge",
        "push",
        "share",
        "reply",
        "respond",
        "schedule",
        "order",
        "purchase",
        "commit",
        "release",
        "sign",
        "transfer",
        "forward",
        "call",
        "contact",
        "message",
        "upload",
        "run",
        "make",
        "change",
        "cancel",
        "accept",
        "approve",
        "spend",
        "install",
        "invite",
        "remove",
        "update",
        "modify",
        "edit",
        "file",
        "launch",
        "ship",
        "execute",
        "reach",
        "text",
        "tweet",
        "answer",
        "confirm",
        "decline",
        "refund",
        "withdraw",
        "wire",
        "print",
        "close",
        "open",
        "create",
        "drop",
        "move",
        "rename",
        "overwrite",
        "reset",
        "restart",
        "shut",
        "go live",
        "promote",
        "rollback",
        "roll",
        "archive",
        "do",
    }
)


def _action_en(raw: str) -> str | None:
    a = _clean(raw)
    a = re.sub(r"^(?:you|we|anyone|somebody|someone)\s+", "", a, flags=re.I)
    words = a.split()
    if words and words[0].casefold() in _GERUNDS:
        words[0] = _GERUNDS[words[0].casefold()]
    a = " ".join(words)
    a = _OBJECT_PRONOUN.sub(lambda m: m.group(1) + " ", a).strip()
    if not a or a.split()[0].casefold() not in _ACTIONS_EN:
        return None  # "let me check before you go": not an action that needs a confirmation
    return a


def _action_zh(raw: str) -> str | None:
    a = _clean(raw)
    a = re.sub(r"^(?:以后|今后|每次|凡是|任何|所有|在|你|都|要)+", "", a)
    a = re.sub(r"(?:之|的)$", "", a)
    return a if len(a) >= 2 else None


def _grp(group: int, fn: Callable[[str], str | None]) -> Getter:
    return lambda m: fn(m.group(group))


_CONFIRM_EN = r"(?:review|confirm|approve|check|see|look at|okay|ok|sign off on|read|vet|proofread)"
_RULES = [
    _P(
        _rx(
            r"\b(?:don'?t|do not|never)\s+(.{2,60}?)\s+without\s+(?:my\s+(?:explicit\s+)?(?:approval|confirmation|permission|ok|okay|sign-off|go-ahead)|"
            r"asking(?: me)?(?: first)?|checking with me(?: first)?|confirming with me|me confirming|me approving|my say-so)"
        ),
        _grp(1, _action_en),
        True,
    ),
    _P(
        _rx(
            r"\b(?:let me|I(?:'d|\s+would)?\s+(?:want|like|need)\s+to|I\s+(?:must|should|get to)|always let me|ask me to|I\s+want\s+to)\s+"
            + _CONFIRM_EN
            + r"\s+(?:it|them|this|that|things|anything|everything|drafts?|the\s+\w+|your\s+\w+)?\s*(?:first\s+)?"
            r"before\s+(?:you\s+|we\s+|anyone\s+|it\s+)?(.{2,80})"
        ),
        _grp(1, _action_en),
    ),
    _P(
        _rx(
            r"\b(?:ask|check with|confirm with|run it by|get\s+(?:my\s+)?(?:approval|confirmation|ok|okay|sign-off)(?:\s+from\s+me)?)\s+"
            r"(?:me\s+)?(?:first\s+)?(?:for\s+(?:my\s+)?(?:approval|confirmation|permission|ok|okay)\s+)?before\s+(?:you\s+)?(.{2,80})"
        ),
        _grp(1, _action_en),
    ),
    _P(
        re.compile(
            r"(?:在|每次|以后|今后|凡是)?(.{1,20}?)(?:之前|以前|前)\s*(?:一定|务必|必须|都|要|需要|得|请)*\s*(?:先)?\s*"
            r"(?:让我|给我|跟我|和我|找我|问我|请我|经过我|经我|由我|等我)\s*(?:的)?\s*"
            r"(?:确认|审核|审批|过目|看一下|看一眼|看看|看|批准|同意|检查|核对)"
        ),
        _grp(1, _action_zh),
    ),
    _P(
        re.compile(
            r"(?:未经|没有|没经过|没得到)我的?(?:确认|同意|允许|批准|审批)(?:之前|前)?[，,]?\s*(?:不要|别|不能|不得|不许|不可以)\s*(.{2,20})"
        ),
        _grp(1, _action_zh),
        True,
    ),
    _P(
        re.compile(r"(?:不要|别|不能|不得)\s*(?:在)?未经我的?(?:确认|同意|允许|批准)(?:就)?\s*(.{2,20})"),
        _grp(1, _action_zh),
        True,
    ),
]


def _r_rule(text: str, at: datetime) -> list[_Hit]:
    found = _scan(_RULES, text)
    if not found:
        return []
    return [_Hit("confirm_before", Kind.RULE, "rule.confirm_before", found[0], temporal=True)]


# time-boxed priorities ------------------------------------------------------------------------------

_TM_EN = _rx(
    r"\b(this week|today|tonight|this month|next week|tomorrow|for now|right now|for the time being|at the moment|"
    r"for the rest of the (?:week|day))\b"
)
_TM_ZH = re.compile(
    r"(这周|本周|这个星期|这星期|本星期|这礼拜|这个礼拜|今天|今日|今晚|本月|这个月|下周|下个星期|下礼拜|明天|"
    r"目前|眼下|当前|现阶段|暂时|这几天)"
)
_PRIORITY_WORD = _rx(r"\bpriorit(?:y|ies|i[sz]e|i[sz]ing)\b|优先|重点|首要")


def _window(marker: str, at: datetime) -> tuple[datetime | None, datetime | None]:
    k = marker.casefold()
    if k in (
        "this week",
        "for the rest of the week",
        "这周",
        "本周",
        "这个星期",
        "这星期",
        "本星期",
        "这礼拜",
        "这个礼拜",
    ):
        return at, week_end(at)
    if k in ("today", "tonight", "for the rest of the day", "今天", "今日", "今晚"):
        return at, day_end(at)
    if k in ("this month", "本月", "这个月"):
        return at, month_end(at)
    if k in ("next week", "下周", "下个星期", "下礼拜"):
        start = week_end(at)
        return start, start + timedelta(days=7)
    if k in ("tomorrow", "明天"):
        start = day_end(at)
        return start, start + timedelta(days=1)
    return None, None  # "for now / 目前": the registry's default lifetime


_PRIORITY_EN = [
    _P(
        _rx(
            r"\b(?:my|our|the)\s+(?:top\s+|main\s+|first\s+|biggest\s+|#1\s+|number one\s+)?priorit(?:y|ies)\b"
            r"(?:\s+(?:this week|today|tonight|this month|next week|tomorrow|for now|right now))?\s+(?:is|are|will be)\s+(.{1,80})"
        ),
        _grp(1, _clean),
    ),
    _P(
        _rx(
            r"(?:^|\b(?:let'?s|let us|please|we\s+(?:should|need to|will|must|'ll)|I\s+(?:want to|need to|will|must|should|'ll|plan to)|"
            r"I'm\s+going\s+to|I'm|you\s+(?:should|need to))\s+|[,:]\s*|\b(?:this week|today|tonight|this month|next week|tomorrow|"
            r"for now|right now)\s*,?\s*)(?:\w+\s+)?"
            r"(?:focus(?:ing)?\s+on|prioriti[sz]e|prioriti[sz]ing|concentrate\s+on|work(?:ing)?\s+on|deal(?:ing)?\s+with|"
            r"tackle|tackling|handle|handling|finish(?:ing)?|ship(?:ping)?)\s+(.{1,80})"
        ),
        _grp(1, _clean),
    ),
    _P(
        _rx(
            r"^(?:focus(?:ing)?\s+on|prioriti[sz]e|concentrate\s+on|work\s+on|deal\s+with|tackle|handle|finish|ship)\s+(.{1,80})"
        ),
        _grp(1, _clean),
    ),
    _P(_rx(r"^(.{1,60}?)\s+is\s+(?:my|our|the)\s+(?:top\s+|main\s+|first\s+)?priority\b"), _grp(1, _clean)),
]
_PRIORITY_ZH = [
    _P(
        re.compile(
            r"(?:我|我们)?(?:的)?(?:首要|最重要|主要|头号)?(?:的)?(?:任务|重点|优先级最高的|优先事项)(?:是|为)\s*(.{1,40})"
        ),
        _grp(1, _clean),
    ),
    _P(
        re.compile(
            r"(?:先|优先|重点|主要|集中精力|集中|全力|专心|要|得|需要|必须)\s*(?:处理|做|搞|忙|推进|完成|解决|关注|攻克|搞定|跟进)\s*(?!了|过)(.{1,40})"
        ),
        _grp(1, _clean),
    ),
    _P(re.compile(r"(?:专注|聚焦|集中)(?:于|在)?\s*(.{1,40})"), _grp(1, _clean)),
    _P(re.compile(r"(?:先|优先)\s*把\s*(.{1,40})"), _grp(1, _clean)),
    _P(re.compile(r"(?:处理|推进|解决|搞定|主攻|跟进)\s*(?!了|过)(.{1,40})"), _grp(1, _clean)),
]


def _r_priority(text: str, at: datetime) -> list[_Hit]:
    tm = _TM_EN.search(text) or _TM_ZH.search(text)
    if not tm and not _PRIORITY_WORD.search(text):
        return []
    # the value must not carry the time marker: match on the text with the marker blanked out
    body = text if not tm else (text[: tm.start()] + " " * (tm.end() - tm.start()) + text[tm.end() :])
    body = body.strip()
    found = _scan(_PRIORITY_EN, body) or _scan(_PRIORITY_ZH, body)
    if not found:
        return []
    value = re.sub(r"^(?:把|一下|下)", "", _clean(found[0]))
    value = _clean(re.sub(r"\s+first$", "", value, flags=re.I))
    if not value or re.fullmatch(r"(?:it|this|that|things|stuff|什么|啥|这个|那个)", value, re.I):
        return []
    vf, vu = _window(tm.group(1), at) if tm else (None, None)
    return [_Hit("priority", Kind.PRIORITY, "priority.focus", value, confidence=0.85, valid_from=vf, valid_until=vu)]


# project decisions ----------------------------------------------------------------------------------

_LABEL_EN = re.compile(r"^(?:the\s+|our\s+)?(.+?)\s+([A-Z]|\d+|v\d+(?:\.\d+)*)$", re.I)
_LABEL_ZH = re.compile(r"^(.+?)\s*([A-Za-z]|\d+|v\d+(?:\.\d+)*)$")
_GENERIC_TOPIC = re.compile(r"^(?:我们|团队|大家|项目|最后|最终|已经|就|我)+")


def _decision(value: str, topic: str | None) -> tuple[str, str] | None:
    v = _clean(_PROJECT.sub("", value))
    if not v:
        return None
    t = _clean(topic) if topic else ""
    t = _GENERIC_TOPIC.sub("", t) if t else ""
    t = re.sub(r"^(?:the|our|this)\s+", "", t, flags=re.I)
    if not t:
        m = (_LABEL_EN if re.match(r"[A-Za-z]", v) else _LABEL_ZH).match(v)
        if m and len(m.group(1).strip()) >= 2 and (v.isascii() or not m.group(1).isascii()):
            t = m.group(1)
    slug = _slug(t) if t else ""
    return (f"knowledge.decision.{slug}" if slug else "knowledge.decision"), v


def _decision_en(m: re.Match[str]) -> tuple[str, str] | None:
    value, topic = m.group("v"), m.groupdict().get("t")
    split = re.match(r"^(.*?)\s+(?:for|as)\s+(?:the\s+|our\s+|this\s+)?(.+)$", value, re.I)
    if (
        split
        and not _PROJECT.fullmatch(" ".join(split.group(0).split()[-3:]))
        and not re.fullmatch(r"(?:this\s+)?(?:project|repo|now|the project)", split.group(2), re.I)
    ):
        value, topic = split.group(1), topic or split.group(2)
    return _decision(value, topic)


_DECIDE_EN = (
    r"(?:chose|choose|picked|selected|decided\s+(?:on|to\s+go\s+with|to\s+use|to\s+adopt)|settled\s+on|went\s+with|"
    r"are\s+going\s+with|will\s+go\s+with|agreed\s+(?:on|to\s+use)|opted\s+for|adopted|(?:are\s+)?going\s+to\s+use|will\s+use)"
)
_DECISIONS = [
    _P(
        _rx(
            r"^for\s+(?:the\s+|our\s+)?(?P<t>[^,]{2,40}),\s*(?:we|the team|our team)(?:'ve|'ll|\s+have|\s+will)?\s+"
            r"(?:finally\s+|eventually\s+|just\s+|already\s+)?" + _DECIDE_EN + r"\s+(?P<v>.{1,60})"
        ),
        _decision_en,
    ),
    _P(
        _rx(
            r"\b(?:we|the team|our team)(?:'ve|'ll|\s+have|\s+will)?\s+(?:finally\s+|eventually\s+|just\s+|already\s+)?"
            + _DECIDE_EN
            + r"\s+(?P<v>.{1,80})"
        ),
        _decision_en,
    ),
    _P(
        _rx(
            r"\b(?:we|the team|our team)(?:'ve|\s+have)?\s+(?:finally\s+|just\s+|already\s+)?decided\s+(?:to\s+|that\s+)(?P<v>.{2,80})"
        ),
        lambda m: _decision(m.group("v"), None),
    ),
    _P(_rx(r"\bthe\s+decision\s+(?:is|was)\s+(?:to\s+)?(?P<v>.{2,80})"), lambda m: _decision(m.group("v"), None)),
    _P(
        re.compile(
            r"(?P<t>[\u4e00-\u9fffA-Za-z0-9 ]{2,12}?)\s*(?:最终|最后|已经|就)?\s*(?:采用|选用|选定|定为|确定为|确定用|决定用|决定采用|"
            r"选择了?|用的是)\s*(?P<v>.{1,30})"
        ),
        lambda m: _decision(m.group("v"), m.group("t")),
    ),
    _P(
        re.compile(
            r"(?:我们|团队|大家)?(?:最终|最后|已经|刚刚)?(?:决定|确定|商定|敲定)(?:了)?(?:采用|使用|用|选择|选用|走)?\s*(?P<v>.{1,30})"
        ),
        lambda m: _decision(m.group("v"), None),
    ),
]


def _r_decision(text: str, at: datetime) -> list[_Hit]:
    found = _scan(_DECISIONS, text)
    if not found:
        return []
    attribute, value = found[0]
    return [_Hit("decision", Kind.KNOWLEDGE, attribute, value, confidence=0.85, project_default=True)]


# goals ------------------------------------------------------------------------------------------------

_GOAL_BLOCK = (
    r"(?!(?:know|ask|see|check|say|tell|mention|add|confirm|clarify|make sure|try|go back|continue|stop|remind|"
    r"point out|note|share|show|thank|double[- ]check|verify|start with|begin with|discuss|talk|understand why|"
    r"be clear|repeat|change|update|correct|fix this|look at|read|hear|let you|focus|prioriti|review|forget|"
    r"delete|remove|use|switch|get (?:a|an|the|this|that|some)|have (?:a|an|the)|do this|do that|go|leave|sleep|eat)\b)"
)
_GOAL_VERB_ZH = (
    r"(?:把|学会|学好|学习|学(?!一下|下)|掌握|成为|当上?|完成|实现|发布|上线|做出|做成|开发|写完|写出|写一本|出版|通过|考上|考过|"
    r"考取|拿到|获得|找到|转行|创业|开一家|跑完|跑一个|减肥|减掉|提高|提升|改善|建立|搭建|养成|存够|攒够|移民|申请|进入|加入)"
)
_GOALS = [
    _P(
        _rx(
            r"\b(?:my|our)\s+(?:main\s+|long[- ]term\s+|primary\s+|ultimate\s+|big\s+|biggest\s+|top\s+|personal\s+|career\s+|"
            r"real\s+|overall\s+)?goal\s+(?:(?:this|next)\s+year\s+)?(?:is|will be)\s+(?:to\s+)?(.{2,100})"
        ),
        _grp(1, _clean),
    ),
    _P(
        _rx(
            r"\bI\s+(?:really\s+|eventually\s+|ultimately\s+|someday\s+|one day\s+|still\s+)?(?:want|hope|plan|aim|intend|wish)\s+to\s+"
            + _GOAL_BLOCK
            + r"(.{2,100})"
        ),
        _grp(1, _clean),
    ),
    _P(
        re.compile(r"我(?:的)?(?:长期|主要|最终|终极|首要|人生|职业|今年的?|明年的?)?目标是\s*(.{2,60})"),
        _grp(1, _clean),
    ),
    _P(
        re.compile(
            r"我(?:一直|真的|很|特别|非常)?(?:想要|想|希望|打算|计划|梦想)(?:能够?|可以)?(?:在[^，,]{1,10}?)?\s*("
            + _GOAL_VERB_ZH
            + r".{1,60})"
        ),
        _grp(1, _clean),
    ),
]


def _r_goal(text: str, at: datetime) -> list[_Hit]:
    found = _scan(_GOALS, text)
    if not found:
        return []
    return [_Hit("goal", Kind.GOAL, "goal.main", found[0], confidence=0.85)]


# forget ---------------------------------------------------------------------------------------------

_FORGET_EN = _rx(
    r"^(?:please\s+|can you\s+|could you\s+|would you\s+|you can\s+|you may\s+)?"
    r"(?:forget|delete|remove|erase|clear|drop|stop remembering|don'?t remember|no need to remember)\s+"
    r"(?:about\s+)?(?:the fact\s+)?(?:that\s+|what I (?:said|told you) about\s+)?(.+)"
)
_FORGET_ZH = re.compile(
    r"^(?:请|麻烦)?(?:你)?(?:帮我)?(?:把)?(?:忘掉|忘记|忘了|删除|删掉|清除|抹掉|不要再记(?:住)?|别再记(?:住)?|不用记(?:住)?)"
    r"(?:关于)?(.+)"
)
_FORGET_TAIL = re.compile(
    r"(?i)\s*(?:from|in)\s+(?:your\s+)?(?:memory|memories|records?)\b.*$|(?:的)?(?:这条|这件事|这个)?(?:记忆|记录|信息|偏好)$"
)
_FORGET_NOUNS: list[tuple[re.Pattern[str], str]] = [
    (
        _rx(r"\b(?:home\s*city|city|location|address|where I live)\b|住址|住在哪|住哪|城市|居住地|所在地"),
        "profile.home_city",
    ),
    (_rx(r"\btime\s?zone\b|时区"), "profile.timezone"),
    (_rx(r"\blanguage(?:\s+preference)?\b|语言"), "preference.language"),
    (
        _rx(
            r"\b(?:answer|response|reply)\s+(?:length|detail|style)\b|\b(?:verbosity|detail\s+preference|length\s+preference)\b|"
            r"回答(?:长度|详细程度|长短)|详细程度"
        ),
        "preference.response.detail",
    ),
    (_rx(r"\bexplanation\s+style\b|讲解(?:方式|风格)|解释(?:方式|风格)"), "preference.explanation_style"),
    (_rx(r"\b(?:expertise|skill level|experience level)\b|水平|专业程度|技能水平"), "profile.expertise"),
    (_rx(r"\bgoals?\b|目标"), "goal.main"),
    (_rx(r"\b(?:priority|priorities|focus)\b|优先级|重点|优先事项"), "priority.focus"),
    (_rx(r"\b(?:confirmation|approval)\s+rules?\b|确认规则"), "rule.confirm_before"),
]
_FORGET_PREFIX = re.compile(r"(?i)^(?:my|the|that|about|我的|我|关于)\s*")


def _forget(text: str, at: datetime) -> tuple[str, Any] | None:
    m = _FORGET_EN.match(text) or _FORGET_ZH.match(text)
    if not m:
        return None
    target = _FORGET_TAIL.sub("", m.group(1)).strip()
    target = _clean(target)
    if not target:
        return None
    # "forget that I live in Beijing": the target says what (and which value) to forget
    hits = _analyze(target, at)
    if hits:
        return hits[0].attribute, hits[0].value
    # "forget my home city": a noun names the attribute (every value)
    noun = _FORGET_PREFIX.sub("", target)
    goal = re.match(r"(?i)^(?:my\s+)?goal\s+(?:to|of)\s+(.+)$", target)
    if goal:
        return "goal.main", _clean(goal.group(1))
    for rx, attribute in _FORGET_NOUNS:
        if rx.search(noun) and len(noun) <= 40:
            return attribute, None
    return None


# families in precedence order: a goal is considered only when nothing more specific matched
_FAMILIES: list[Callable[[str, datetime], list[_Hit]]] = [
    _r_rule,
    _r_detail,
    _r_length,
    _r_language,
    _r_style,
    _r_home,
    _r_timezone,
    _r_expertise,
    _r_decision,
    _r_priority,
]


def _analyze(text: str, at: datetime) -> list[_Hit]:
    hits: list[_Hit] = []
    seen: set[str] = set()
    for family in _FAMILIES:
        for h in family(text, at):
            if h.attribute not in seen:
                seen.add(h.attribute)
                hits.append(h)
    if not hits:
        hits = _r_goal(text, at)
    return hits


# --- the extractor ------------------------------------------------------------------------------

RULES = (
    "forget",
    "confirm_before",
    "detail",
    "length",
    "language",
    "explanation_style",
    "order",
    "home_city",
    "timezone",
    "expertise",
    "decision",
    "priority",
    "goal",
)


class RuleExtractor:
    """Deterministic English/Chinese rules. Pure: the same turn always gives the same extraction."""

    def extract(self, turn: Turn) -> Extraction:
        redacted_text = redact(turn.text)
        if turn.role != "user":
            return Extraction(redacted_text=redacted_text)  # an assistant's answer is never evidence
        items: list[Proposal] = []
        refused: list[str] = []

        def refuse(code: str) -> None:
            if code not in refused:
                refused.append(code)

        spans = refusal_spans(turn.text)
        hold = bool(_HOLD.search(turn.text))
        carry = False  # a standalone "that was wrong." applies to the next understood sentence
        for s in split_sentences(turn.text):
            if any(a < s.end and b > s.start for _, a, b in spans):
                refuse(REFUSED_SECRET)
                continue
            quote = redact(s.text)
            body = _LEAD_CORRECTION.sub("", s.text).strip()
            corrected = bool(_LEAD_NO.match(s.text) or _CORRECTION.search(s.text))
            if s.question and not _QUESTION_OK.search(body):
                carry = carry or corrected
                continue
            core = body.rstrip(_TRAIL + " ").strip()
            if not core:
                carry = carry or corrected
                continue
            forget = _forget(re.sub(r"^(?:(?:please|then|and|also|ok|okay)\b\s*,?\s*)+", "", core, flags=re.I), turn.at)
            if forget is not None:
                attribute, value = forget
                match: dict[str, Any] = {"attribute": attribute}
                if value is not None:
                    match["value"] = value
                items.append(
                    Proposal(
                        rule="forget",
                        command={"op": "forget", "tenant": turn.tenant, "user": turn.user, "match": match},
                    )
                )
                carry = False
                continue
            hits = _analyze(core, turn.at)
            if not hits:
                carry = carry or corrected
                continue
            link = corrected or carry or bool(_LASTING.search(core))
            carry = False
            for h in hits:
                rec = self._record(turn, core, quote, h, refuse)
                if rec is None:
                    continue
                # Only a single-valued slot has one "current record" to replace; a multi-valued one
                # (goals, confirm-before rules) simply adds, so it is never linked.
                single = resolve(h.attribute, h.kind).cardinality == Cardinality.SINGLE
                items.append(
                    Proposal(
                        record=rec,
                        rule=h.rule,
                        link_current=single and (link or h.change or (hold and h.kind == Kind.PRIORITY)),
                    )
                )
        return Extraction(items=items, refused=refused, redacted_text=redacted_text)

    @staticmethod
    def _record(turn: Turn, core: str, quote: str, h: _Hit, refuse: Callable[[str], None]) -> dict[str, Any] | None:
        valid_from, valid_until = h.valid_from, h.valid_until
        lasting = bool(_LASTING.search(core))
        temporary = bool(_TEMP.search(core)) or bool(_CURRENT_ITEM.search(core))
        if h.temporal and temporary and not lasting:
            if not turn.session:
                refuse(REFUSED_NO_SESSION)  # never widened to global
                return None
            scope = f"session:{turn.session}"
            valid_from, valid_until = turn.at, turn.at + TEMPORARY_LIFETIME
        elif _PROJECT.search(core) or h.project_default:
            if turn.project:
                scope = f"project:{turn.project}"
            elif h.project_default:
                scope = "global"
            else:
                refuse(REFUSED_NO_PROJECT)
                return None
        else:
            scope = "global"
        rec: dict[str, Any] = {
            "tenant": turn.tenant,
            "user": turn.user,
            "kind": h.kind.value,
            "attribute": h.attribute,
            "scope": scope,
            "value": h.value,
            "statement": quote,
            "authority": "user_explicit",
            "confidence": h.confidence,
            "observed_at": iso(turn.at),
            "evidence": [{"source_type": "conversation", "source_id": turn.source_id(), "quote": quote}],
        }
        if valid_from is not None:
            rec["valid_from"] = iso(valid_from)
        if valid_until is not None:
            rec["valid_until"] = iso(valid_until)
        return rec
