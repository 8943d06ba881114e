"""Expertise: `profile.expertise` = beginner | intermediate | advanced | expert, or
`profile.expertise.<domain slug>` when a domain is named, so each domain is its own slot.

Besides a level said outright ("I'm a beginner in Python", "我是前端新手"), the level is read from
how the user describes their experience: never used / zero experience / 零基础 -> beginner;
decent at / know my way around / 会一点 -> intermediate; professional / very good at / 很熟 ->
advanced; teach it / maintain it / 贡献者 -> expert; and "N years of X" (under a year beginner, 1-3
intermediate, more advanced).

The patterns, the level words and the cues are in `memory/data/families/expertise.toml`; here are
the readers that turn what was said into a level and a domain, and the cue fallback."""

from __future__ import annotations

import re
from datetime import datetime

from ..models import Kind
from . import prefilter
from .family import Hit
from .open_statement import is_critical
from .prefilter import one_of, rewritten
from .restatement import says_when_or_how_much
from .spec import Reader, Spec
from .text import clean, matched_by, scan, slugify, tables, to_int

SPEC = Spec("expertise")
_LEVELS = SPEC.maps["levels"]
_ZH_DEGREE = SPEC.maps["degrees_zh"]
_LEVEL_ZH_WORDS = SPEC.maps["level_words_zh"]
_ROLE_DOMAIN = SPEC.maps["role_domains"]
_ROLE_DOMAIN_ZH = SPEC.maps["role_domains_zh"]
_CREDENTIALS = SPEC.maps["credentials"]
_KNOWN_AMOUNTS = SPEC.maps["known_amounts"]
_SELF_RATINGS = SPEC.maps["self_ratings"]
_KNOWLEDGE_DEPTHS = SPEC.maps["knowledge_depths"]
_STAGES_ZH = SPEC.maps["stages_zh"]
_GRADES_ZH = SPEC.maps["grades_zh"]
_NO_DOMAIN = frozenset(SPEC.words["no_domain"])
_GENERIC_ROLES = frozenset(SPEC.words["generic_roles"])
_NOT_ROLES = frozenset(SPEC.words["not_roles"])
_NOT_DOMAIN_WORDS = frozenset(SPEC.words["not_domain_words"])
# how a user describes their level, both languages -> level
_PHRASE_LEVELS = [(SPEC.part(f"phrase_{level}"), level) for level in ("beginner", "intermediate", "advanced")]
_SELF_EN = SPEC.expressions["self_en"]
_CAPITALIZED = SPEC.expressions["capitalized"]
_ROLE_SPOT_EN = SPEC.expressions["role_spot_en"]
_ASPIRATION = SPEC.expressions["aspiration"]
_SELF_ZH = SPEC.expressions["self_zh"]
_NOT_ABOUT_ME = SPEC.expressions["not_about_me"]
_EXPERTISE_GUARD = SPEC.expressions["expertise_guard"]
_CONTRAST = SPEC.expressions["contrast"]
_ABOUT_ME = SPEC.expressions["about_me"]
_NOT_A_SKILL = SPEC.expressions["not_a_skill"]
_DOMAIN_SPOT_EN = SPEC.searches("domain_spot_en")
_DOMAIN_SPOT_ZH = SPEC.searches("domain_spot_zh")
_CUES_EN = SPEC.tagged("cues_en")
_CUES_ZH = SPEC.tagged("cues_zh")
# A level said outright elsewhere in the sentence wins over one read from a duration or a description:
# "ten years of Kubernetes … I help maintain a few operators" is expert, "三四年了，pandas 用得还行"
# intermediate, "I'm a hobbyist …, somewhere in the middle" intermediate. Denials come first ("not a
# beginner, not an expert either", "离精通还差得远", "不算新手也不算高手" are intermediate).
_OUTRIGHT = SPEC.tagged("outright")


def _clean_domain(raw: str | None) -> str | None:
    if not raw:
        return None
    domain = clean(raw)
    if re.fullmatch(r"[\d:.\s]+(?:am|pm)?", domain, re.I):
        return None  # "at 3:30": a time, not a skill
    domain = re.sub(r"^(?:the|a|an|any|some|my|all)\s+", "", domain, flags=re.I)
    domain = re.sub(
        r"\s+(?:stuff|things|work|before|in\ general|at\ all|either|too|as\ well|world)$", "", domain, flags=re.I
    )
    domain = re.sub(r"(?:的|这块|这一块|这方面|方面|领域|这个东西|这些)$", "", domain)
    domain = re.sub(r"^(?:我的?|在|对|关于)", "", domain)
    if re.match(r"(?:很多|一些|有些|好多|许多|大部分|所有|什么|这|那)", domain):
        return None
    if re.match(r"(?i)(?:how|what|why|where|when|who|whether|if|to|that)\b", domain):
        return None
    domain = re.sub(r"^会(?=[\u4e00-\u9fff]{2})", "", domain)
    if not domain.isascii():
        domain = (
            re.sub(r"(?<=\S)(?:开发工程师|开发者|工程师|程序员|开发|码农)$", "", domain)
            if re.search(r"[A-Za-z]", domain)
            else domain
        )
        if domain in ("开发", "开发者", "工程师", "程序员", "码农", "用户"):
            return None
    if domain.casefold() in _NO_DOMAIN or not slugify(domain):
        return None
    return domain


def _role_level(m: re.Match[str]) -> tuple[str, str | None] | None:
    """ "an advanced React developer", "a professional photographer" (the role is the domain then)."""
    level = _LEVELS.get(m.group(1).casefold())
    if not level:
        return None
    domain = _clean_domain(m.group(2))
    if domain is None:
        role = m.group(3).casefold().rstrip("s")
        if role not in _GENERIC_ROLES:
            domain = role
    return level, domain


_ORDER = ["beginner", "intermediate", "advanced", "expert"]


def _between(low: str, high: str) -> str:
    """ "between beginner and advanced" is intermediate; between two neighbours, the upper one."""
    a, b = _ORDER.index(_LEVELS[low.casefold()]), _ORDER.index(_LEVELS[high.casefold()])
    return _ORDER[(a + b) // 2] if b - a >= 2 else _ORDER[b]


def _with_domain(level: str | None, raw: str | None) -> tuple[str, str | None] | None:
    """A level read from a description needs the thing it is about ("decent at Excel", not "okay with that")."""
    if not level or not raw or _NOT_A_SKILL.match(raw.strip()) or re.search(r"[但不而却]|可是", raw):
        return None
    domain = _clean_domain(raw)
    return (level, domain) if domain else None


def _phrase_level(phrase: str | None) -> str | None:
    if not phrase:
        return None
    p = " ".join(phrase.casefold().split())
    if p in ("proficient", "fluent"):
        return "advanced"
    for pattern, level in _PHRASE_LEVELS:
        if re.fullmatch(pattern, p, re.X):
            return level
    return None


def _by_duration(n_raw: str, unit: str) -> str | None:
    raw = " ".join(n_raw.casefold().split())
    if raw == "半":
        return "beginner"  # half a year
    rng = re.fullmatch(r"([一二两三四五六七八九])([一二两三四五六七八九])", raw)
    if rng:
        raw = rng.group(1)  # "三四年": the lower bound
    if raw.endswith(("几", "多")):
        raw = raw[:-1] or "几"
    n = 3 if raw == "几" else 1 if raw in ("a", "an", "one", "一") else to_int(raw)
    if not n:
        return None
    u = unit.casefold()
    if u.startswith(("month", "week", "day", "个月", "月", "周", "天", "星期")):
        return "beginner" if not u.startswith(("month", "个月", "月")) or n < 12 else "intermediate"
    if n < 2:
        return "beginner"
    return "intermediate" if n <= 3 else "advanced"


def _duration_en(m: re.Match[str]) -> tuple[str, str | None] | None:
    level = _by_duration(m.group("n"), m.group("u"))
    if not level:
        return None
    raw = re.sub(
        r"(?i)^(?:professional|full[- ]time|part[- ]time|senior|junior|freelance|working|practicing)\s+",
        "",
        m.group("d"),
    )
    return level, _clean_domain(_ROLE_DOMAIN.get(raw.casefold().rstrip("s"), raw))


def _role_duration_zh(m: re.Match[str]) -> tuple[str, str | None] | None:
    level = _by_duration(m.group("n"), m.group("u"))
    return (level, _clean_domain(_ROLE_DOMAIN_ZH.get(m.group("d"), m.group("d")))) if level else None


def _duration_zh(m: re.Match[str]) -> tuple[str, str | None] | None:
    if re.search(r"老公|老婆|丈夫|妻子|结婚|认识|在一起|恋爱|离婚|住|搬|来|到|工作了|上班|当妈|当爸", m.group("d")):
        return None  # "我和我老公结婚十年了": a time, not a skill
    if "的" in m.group("d") or re.match(r"吃素|吃斋|戒|不吃|不喝|不抽|素食", m.group("d")):
        return None  # "我开的是一辆卡罗拉 开了五年了", "我吃素好几年了": a thing or a diet, not a skill
    level = _by_duration(m.group("n").removeprefix("好"), m.group("u"))
    return (level, _clean_domain(m.group("d"))) if level else None


def _domain_en(text: str) -> str | None:
    for spot in _DOMAIN_SPOT_EN:
        m = spot.search(text)
        if m and m.group(1).strip().casefold() not in _NOT_DOMAIN_WORDS and not _NOT_A_SKILL.match(m.group(1).strip()):
            d = _clean_domain(re.sub(r"\s+(?:professionally|daily|for\s+.*)$", "", m.group(1)))
            if d:
                return d
    for m in _CAPITALIZED.finditer(text):
        if m.group(1).casefold() not in _NOT_DOMAIN_WORDS:
            return _clean_domain(m.group(1))
    for m in _ROLE_SPOT_EN.finditer(text):
        role = m.group("role").casefold()
        mod = re.search(
            r"(?i)\b(data|web|mobile|backend|frontend|front-end|back-end|software|ml|machine\s+learning|"
            r"security|network|game|ux|ui|product|graphic|devops|cloud|database|systems)\s+" + role,
            text,
        )
        if mod:
            return _clean_domain(mod.group(0))
        if role in _ROLE_DOMAIN:
            return _ROLE_DOMAIN[role]
        if role not in _NOT_ROLES and len(role) > 3:
            return role
    return None


def _expertise_cue_en(m: re.Match[str]) -> tuple[str, str | None] | None:
    text = m.string
    if not _SELF_EN.search(text) or re.search(r"[\u4e00-\u9fff]", text) or _ASPIRATION.search(text):
        return None
    for level, cue in _CUES_EN:
        if prefilter.test(cue, text):
            if says_when_or_how_much(text):
                # a day, a time or an amount: the sentence tells of a plan or an event, not of a
                # level ("My thesis draft is due on April 10", "standup is at 9:30 on Zoom")
                return None
            domain = _domain_en(text)
            if domain is None:
                return None  # "I'm no expert", "I taught my dog a trick": too vague without the thing it is about
            return level, domain
    return None


prefilter.tested(*(cue for _, cue in _CUES_EN), *(cue for _, cue in _CUES_ZH))


def _expertise_cue_zh(m: re.Match[str]) -> tuple[str, str | None] | None:
    text = m.string
    if not _SELF_ZH.search(text) or _ASPIRATION.search(text):
        return None
    for level, cue in _CUES_ZH:
        if not prefilter.test(cue, text):
            continue
        for spot in _DOMAIN_SPOT_ZH:
            d = spot.search(text)
            if d:
                domain = _clean_domain(_ROLE_DOMAIN_ZH.get(d.group(1), d.group(1)))
                if domain and not re.search(
                    r"我|你|他|她|这|那|什么|怎么|东西|问题|时候|经验|基础|水平|一点|很多|大学", domain
                ):
                    return level, domain
        return None  # a level without the thing it is about: "我不会", "还行"
    return None


def _expertise(m: re.Match[str], level_group: int | str, domain_group: int | None) -> tuple[str, str | None] | None:
    """A level word (group `level_group`, or the level itself when it is not a group number) and the
    domain it is said of."""
    level = _LEVELS.get(m.group(level_group).casefold()) if isinstance(level_group, int) else level_group
    if not level:
        return None
    domain = _clean_domain(m.group(domain_group)) if domain_group is not None else None
    return level, domain


def _needs_domain(m: re.Match[str], level: str) -> tuple[str, str | None] | None:
    """A level said about something ("new to Rust"): without that something there is nothing to keep."""
    raw = m.group(1) or ""
    if re.match(
        r"(?i)(?:it|this|that|them|these|those|here|there|me|you|him|her|us|a\s+lot|lots|a\s+ton|tons|so\s+much|much|"
        r"more|something|things|a\s+bit|a\s+little|from)\b",
        raw.strip(),
    ):
        return None
    domain = _clean_domain(raw)
    return (level, domain) if domain else None


def _level(m: re.Match[str], level: str, *groups: int | str) -> tuple[str, str | None] | None:
    """A level the pattern says, about the first of `groups` that took part."""
    raw = m.group(groups[0])
    for group in groups[1:]:
        raw = raw or m.group(group)
    return _with_domain(level, raw)


def _credential_role(m: re.Match[str]) -> tuple[str, str | None] | None:
    """ "I'm an experienced nurse", "a certified electrician": a level or a credential, and the role."""
    word = m.group(1).casefold()
    return _with_domain(_CREDENTIALS.get(word, _LEVELS.get(word)), m.group("role"))


def _knows_an_amount(m: re.Match[str]) -> tuple[str, str | None] | None:
    """ "I only know a little HTML", "I know a fair bit of SQL"."""
    amount = m.group(1).casefold()
    level = next((level for lead, level in _KNOWN_AMOUNTS.items() if amount.startswith(lead)), "beginner")
    return _with_domain(level, m.group(2))


def _between_levels(m: re.Match[str]) -> tuple[str, str | None]:
    """ "somewhere between beginner and intermediate" (the domain from "X-wise" or "in X")."""
    d = re.search(r"(?i)\b([\w+#.]+)-wise\b|\b(?:in|with|at|on)\s+([A-Za-z][\w+#.]*)", m.string)
    domain = _clean_domain(d.group(1)) if d and d.group(1) else _clean_domain(d.group(2)) if d else None
    return _between(m.group(1), m.group(2)), domain


def _degree_en(m: re.Match[str]) -> tuple[str, str | None] | None:
    """ "I have a master's in statistics": a doctorate is expert, any other degree advanced."""
    return _with_domain("expert" if m.group(1).casefold() in ("phd", "doctorate") else "advanced", m.group(2))


def _degree_zh(m: re.Match[str]) -> tuple[str, str | None] | None:
    """ "我有计算机硕士学位"."""
    return _with_domain("expert" if m.group(2) == "博士" else "advanced", m.group(1))


def _self_rating(m: re.Match[str]) -> tuple[str, str | None] | None:
    """ "my French is rusty", "my Python is solid"."""
    return _with_domain(_SELF_RATINGS[m.group("l").casefold()], m.group("d"))


def _comfortable(m: re.Match[str]) -> tuple[str, str | None] | None:
    """ "I'm very comfortable with Docker" is advanced; otherwise the phrase's own level."""
    if re.search(
        r"(?i)\b(?:very|really|fully|extremely|super|totally)\s+(?:comfortable|competent|proficient)", m.group(0)
    ):
        return _with_domain("advanced", m.group(3))
    return _with_domain(_phrase_level(m.group(1) or m.group(2)), m.group(3))


def _knowledge_depth(m: re.Match[str]) -> tuple[str, str | None]:
    """ "a solid grasp of statistics", "deep knowledge of Postgres"."""
    word = m.group(1).casefold()
    return _KNOWLEDGE_DEPTHS.get(word, _LEVELS.get(word, "intermediate")), _clean_domain(m.group(2))


def _stage_zh(m: re.Match[str]) -> tuple[str | None, str | None]:
    """ "刚入行的前端"."""
    return _STAGES_ZH.get(m.group(1), _LEVELS.get(m.group(1))), _clean_domain(m.group(2))


def _grade_zh(m: re.Match[str]) -> tuple[str, str | None]:
    """ "中级会计", "英语专业水平"."""
    return _GRADES_ZH[m.group(3)], _clean_domain(m.group(1) or m.group(2))


def _lacks_or_has_zh(m: re.Match[str]) -> tuple[str, str | None]:
    """ "没有编程经验" is beginner, "有多年经验" advanced."""
    return "beginner" if m.group(1).startswith(("没", "缺")) else "advanced", _clean_domain(m.group(2))


def _degree_word_zh(m: re.Match[str]) -> tuple[str, str | None] | None:
    """ "我对编程零基础"."""
    return _with_domain(_ZH_DEGREE.get(m.group(2)), m.group(1))


def _knows_a_little_zh(m: re.Match[str]) -> tuple[str, str | None] | None:
    """ "我会一点吉他": a little is beginner or as said; a bare "会" is read only beside a judgement."""
    said = m.group("l")
    if said == "会" and not re.search(r"不算新手|还行|一般|没问题|凑合", m.string):
        return None
    return _with_domain("intermediate" if said == "会" else _ZH_DEGREE.get(said, "intermediate"), m.group("d"))


def _level_word_zh(m: re.Match[str]) -> tuple[str, str | None] | None:
    """ "英语很溜", "Python还行"."""
    return _with_domain(_LEVEL_ZH_WORDS.get(m.group("l")), m.group("d"))


def _role_zh(m: re.Match[str]) -> tuple[str, str | None] | None:
    """ "我是吉他手": the role names the skill."""
    return _with_domain("advanced", _ROLE_DOMAIN_ZH.get(m.group("d"), m.group("d")))


_READERS: dict[str, Reader] = {
    "expertise": _expertise,
    "needs_domain": _needs_domain,
    "level": _level,
    "role_level": _role_level,
    "duration_en": _duration_en,
    "duration_zh": _duration_zh,
    "role_duration_zh": _role_duration_zh,
    "credential_role": _credential_role,
    "knows_an_amount": _knows_an_amount,
    "between": _between_levels,
    "degree_en": _degree_en,
    "degree_zh": _degree_zh,
    "self_rating": _self_rating,
    "comfortable": _comfortable,
    "knowledge_depth": _knowledge_depth,
    "stage_zh": _stage_zh,
    "grade_zh": _grade_zh,
    "lacks_or_has_zh": _lacks_or_has_zh,
    "degree_word_zh": _degree_word_zh,
    "knows_a_little_zh": _knows_a_little_zh,
    "level_word_zh": _level_word_zh,
    "role_zh": _role_zh,
    "expertise_cue_en": _expertise_cue_en,
    "expertise_cue_zh": _expertise_cue_zh,
}
_EXPERTISE = SPEC.table("expertise", _READERS)


def _expertise_hit(value: tuple[str, str | None], match: re.Match[str]) -> Hit:
    level, domain = value
    attribute = "profile.expertise" + (f".{slugify(domain)}" if domain else "")
    return Hit("expertise", Kind.PREFERENCE, attribute, level, confidence=0.85)


def _outright(text: str, match: re.Match[str], level: str) -> str:
    """The level, unless the sentence says another one outright where the pattern did not look."""
    for outright, cue in _OUTRIGHT:
        c = cue.search(text)
        if not c:
            continue
        if outright == level:
            return level
        inside = c.start() < match.end() and c.end() > match.start()
        if inside:
            # the pattern read a word inside a denial ("离精通还差得远"): the denial wins
            return outright if outright == "intermediate" else level
        if any(o.search(text, match.start(), match.end()) for _, o in _OUTRIGHT):
            return level  # the pattern read a level said outright itself
        between = text[min(c.end(), match.end()) : max(c.start(), match.start())]
        if _CONTRAST.search(between) and re.search(r"(?i)\b(?:in|at|with)\s+[A-Z]", text[c.start() :]):
            return level  # "… but I'm an expert in Go": another domain
        return outright
    return level


def _expertise_hits(text: str, at: datetime) -> list[Hit]:
    # how long a user has had a condition is no level of skill ("I've had a pacemaker since 2021")
    if not _ABOUT_ME.search(text) or _EXPERTISE_GUARD.search(text) or is_critical(text):
        return []
    text = _NOT_ABOUT_ME.sub(" ", text)
    found = scan(_EXPERTISE, text)
    if not found:
        return []
    first = re.split(r"[,，;；]|\s[—–-]\s", text, maxsplit=1)[0]
    if found[1].start() >= len(first) and first != text:
        # "Kotlin我能应付，协程不太熟": the first statement is the level, the rest qualifies it
        head = scan(_EXPERTISE, first)
        if head and head[0][1]:
            found = head
    (level, domain), match = found
    return [_expertise_hit((_outright(text, match, level), domain), match)]


tables(_EXPERTISE)


class _Expertise:
    """The expertise family: the patterns (and the cue fallback) on the sentence without level words
    that are not about the user; a level said about the past gives nothing."""

    rule = "expertise"
    # the prefilter's look: a word for the user (`_expertise_hits` checks it first) and one of the
    # patterns, in the sentence with the level words that are not about the user cut out
    requires = rewritten(one_of(_ABOUT_ME) & one_of(*matched_by(_EXPERTISE)))

    @staticmethod
    def hits(text: str, at: datetime) -> list[Hit]:
        return _expertise_hits(text, at)


EXPERTISE = _Expertise()
