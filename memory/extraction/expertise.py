"""Expertise: `profile.expertise` = beginner | intermediate | advanced | expert, or
`profile.expertise.<domain slug>` when a domain is named, so each domain is its own slot.

Besides a level said outright ("I'm a beginner in Python", "我是前端新手"), the level is read from
how the user describes their experience: never used / zero experience / 零基础 -> beginner;
decent at / know my way around / 会一点 -> intermediate; professional / very good at / 很熟 ->
advanced; teach it / maintain it / 贡献者 -> expert; and "N years of X" (under a year beginner, 1-3
intermediate, more advanced)."""

from __future__ import annotations

import re
from datetime import datetime

from ..models import Kind
from . import prefilter
from .family import Hit
from .open_statement import is_critical
from .prefilter import one_of, rewritten
from .restatement import says_when_or_how_much
from .text import Getter, Pattern, clean, matched_by, rx, scan, slugify, tables, to_int, zh

_LEVELS = {
    "beginner": "beginner",
    "novice": "beginner",
    "newbie": "beginner",
    "noob": "beginner",
    "newcomer": "beginner",
    "junior": "beginner",
    "entry-level": "beginner",
    "intermediate": "intermediate",
    "mid-level": "intermediate",
    "advanced": "advanced",
    "experienced": "advanced",
    "seasoned": "advanced",
    "senior": "advanced",
    "proficient": "advanced",
    "fluent": "advanced",
    "professional": "advanced",
    "veteran": "advanced",
    "expert": "expert",
    "pro": "expert",
    "specialist": "expert",
    "master": "expert",
    "guru": "expert",
    "新手": "beginner",
    "初学者": "beginner",
    "小白": "beginner",
    "菜鸟": "beginner",
    "新人": "beginner",
    "入门者": "beginner",
    "初级": "beginner",
    "外行": "beginner",
    "门外汉": "beginner",
    "中级": "intermediate",
    "老手": "advanced",
    "资深": "advanced",
    "高级": "advanced",
    "熟手": "advanced",
    "熟悉": "advanced",
    "很熟": "advanced",
    "擅长": "advanced",
    "专家": "expert",
    "高手": "expert",
    "大牛": "expert",
    "行家": "expert",
    "大神": "expert",
    "权威": "expert",
    "泰斗": "expert",
    "大拿": "expert",
    "精通": "expert",
    "不熟": "beginner",
    "不太熟": "beginner",
    "不熟悉": "beginner",
    "不太熟悉": "beginner",
}
# how a user describes their level, both languages -> level
_PHRASE_LEVELS = [
    (r"(?:zero|no|little|very\ little|not\ much|hardly\ any|limited|minimal|basically\ no)", "beginner"),
    (
        r"(?:decent|okay|ok|alright|competent|comfortable|not\ bad|reasonably\ good|fairly\ good|pretty\ good|solid)",
        "intermediate",
    ),
    (r"(?:good|very\ good|really\ good|great|excellent|strong|very\ strong|highly\ skilled|skilled)", "advanced"),
]
_ZH_DEGREE = {
    "零基础": "beginner",
    "一窍不通": "beginner",
    "一无所知": "beginner",
    "完全不懂": "beginner",
    "不太懂": "beginner",
    "不懂": "beginner",
    "不会": "beginner",
    "基本为零": "beginner",
    "为零": "beginner",
    "略懂": "beginner",
    "懂一点点": "beginner",
    "会一点点": "beginner",
    "只会一点": "beginner",
    "是小白": "beginner",
    "是外行": "beginner",
    "不熟": "beginner",
    "不太熟": "beginner",
    "会一点": "intermediate",
    "会一些": "intermediate",
    "会点": "intermediate",
    "懂一点": "intermediate",
    "懂一些": "intermediate",
    "还行": "intermediate",
    "一般般": "intermediate",
    "一般": "intermediate",
    "还可以": "intermediate",
    "马马虎虎": "intermediate",
    "熟练": "intermediate",
    "还算熟练": "intermediate",
    "比较熟练": "intermediate",
    "算熟练": "intermediate",
    "入门了": "intermediate",
    "很熟练": "advanced",
    "非常熟练": "advanced",
    "很熟": "advanced",
    "挺熟": "advanced",
    "非常熟": "advanced",
    "特别熟": "advanced",
    "熟": "advanced",
    "很溜": "advanced",
    "溜": "advanced",
    "很在行": "advanced",
    "在行": "advanced",
    "拿手": "advanced",
    "很拿手": "advanced",
    "精通": "expert",
    "不太了解": "beginner",
    "不了解": "beginner",
    "不怎么了解": "beginner",
    "了解不多": "beginner",
    "知道得不多": "beginner",
    "只懂皮毛": "beginner",
    "懂点皮毛": "beginner",
    "皮毛": "beginner",
    "略知一二": "beginner",
    "一知半解": "beginner",
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
    "general",
    "in general",
    "这个",
    "这方面",
    "这",
    "这块",
    "这一块",
    "方面",
    "这些",
    "东西",
}
_ROLE = r"""
            (?:developers?|programmers?|engineers?|users?|learners?|students?|coders?|designers?|
            data\ scientists?|analysts?|researchers?|devs?|photographers?|writers?|translators?|
            accountants?|musicians?|players?|chefs?|cooks?|traders?|investors?|teachers?|
            sysadmins?|architects?|consultants?|practitioners?|hobbyists?)
        """
_GENERIC_ROLES = {
    "developer",
    "programmer",
    "engineer",
    "user",
    "learner",
    "student",
    "coder",
    "dev",
    "practitioner",
    "hobbyist",
    "consultant",
}
_DOMAIN_EN = r"([A-Za-z0-9+#.][\w+#.'\-]*(?:\s+[\w+#.'\-]+){0,3}?)"
_DOMAIN_END = (
    r"(?=$|[,.;!?:]|\s+(?:and|but|so|though|although|because|since|either|yet|before|at\ all|anymore|at\ this\ point|"
    r"now|these\ days|by\ now|already|for\ a\ living|for\ work|at\ work|professionally|every\ day|daily|as\ a\ hobby|"
    r"in\ my\ spare\ time|on\ the\ side|for\ (?:years|a\ while|a\ decade|ages)|last\ (?:week|month|year)|this\ year|"
    r"here)\b)"
)
_LEVEL_NOUN = r"(beginner|novice|newbie|noob|newcomer|expert|pro|specialist|master|guru|veteran)"
_LEVEL_ADJ = r"""
    (beginner|novice|intermediate|advanced|expert|experienced|senior|junior|seasoned|professional|
    mid-level|entry-level|veteran)
"""
_MODIFIER = r"""
    (?:(?:complete|total|absolute|real|true|bit\ of\ an?|bit\ of\ a|relative|pretty|very|quite|fairly|
    kind\ of|sort\ of|somewhat|reasonably|probably|maybe|all|basically|still|more\ or\ less)\s+)*
"""
# "I'm", "I'd call myself", "we're all", "everyone on my team is"
_ME = r"""
    (?:\b(?:treat|think\s+of|consider|see)\s+me\s+as|\bassume\s+I(?:'m|\s+am)|\btalk\s+to\s+me\s+like|\bI(?:'m|\s+am)|
    \bI(?:'d|\s+would)\s+(?:call|describe|consider)\s+myself(?:\s+as)?|
    \bI\s+(?:consider|see)\s+myself(?:\s+as)?|\bI(?:'d|\s+would)\s+say\s+I(?:'m|\s+am)|
    \bwe(?:'re|\s+are)(?:\s+all)?|\beveryone\s+on\s+my\s+team\s+is|\b(?:my|our)\s+(?:whole\s+|entire\s+)?team\s+(?:is|
    are))
"""
_ADVERBS = r"""
    (?:\s+(?:daily|professionally|at\ work|every\ day|regularly|on\ and\ off|full[- ]time|part[- ]time|
    seriously|heavily|a\ lot|quite\ a\ bit|for\ work|as\ a\ hobby|in\ my\ spare\ time|on\ the\ side))*
"""


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


def _expertise(level_group: int | str, domain_group: int | None) -> Getter:
    def get(m: re.Match[str]) -> tuple[str, str | None] | None:
        level = _LEVELS.get(m.group(level_group).casefold()) if isinstance(level_group, int) else level_group
        if not level:
            return None
        domain = _clean_domain(m.group(domain_group)) if domain_group is not None else None
        return level, domain

    return get


def _needs_domain(level: str) -> Getter:
    """A level said about something ("new to Rust"): without that something there is nothing to keep."""

    def get(m: re.Match[str]) -> tuple[str, str | None] | None:
        raw = m.group(1) or ""
        if re.match(
            r"(?i)(?:it|this|that|them|these|those|here|there|me|you|him|her|us|a\s+lot|lots|a\s+ton|tons|so\s+much|much|"
            r"more|something|things|a\s+bit|a\s+little|from)\b",
            raw.strip(),
        ):
            return None
        domain = _clean_domain(raw)
        return (level, domain) if domain else None

    return get


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


_NOT_A_SKILL = re.compile(
    r"^(?:the|this|that|these|those|it|your|my|our|his|her|their|him|them|us|me|you|people|kids|children|"
    r"students|everything|anything|something|it all)\b",
    re.I,
)


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


_NUM_EN = (
    r"(?P<n>\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|a\ couple\ of|a\ fe"
    r"w)"
)
_NUM_ZH = r"(?P<n>\d+|[一二两三四五六七八九十]+几?|好?几|半)"
_ZH_DEGREE_ALT = "|".join(sorted(_ZH_DEGREE, key=len, reverse=True))

_EXPERTISE = [
    Pattern(
        rx(
            _ME
            + r"\s+(?:an?\s+)?"
            + _MODIFIER
            + _LEVEL_NOUN
            + r"\b(?:\s+(?:in|at|with|on|when\ it\ comes\ to)\s+"
            + _DOMAIN_EN
            + _DOMAIN_END
            + r")?"
        ),
        _expertise(1, 2),
    ),
    Pattern(
        rx(
            _ME
            + r"\s+(?:an?\s+)?"
            + _MODIFIER
            + _LEVEL_ADJ
            + r"\s+(?:([\w+#.\-]+(?:\s+[\w+#.\-]+)?)\s+)??"
            + "("
            + _ROLE
            + r")\b"
        ),
        _role_level,
    ),
    Pattern(
        rx(
            _ME + r"\s+(?:an?\s+)?" + _MODIFIER + r"((?-i:[A-Z][\w+#.]*(?:\s+[A-Z][\w+#.]*)?))\s+" + _LEVEL_NOUN + r"\b"
        ),
        _expertise(2, 1),
    ),
    # "I'm an experienced nurse": a level and any role noun
    Pattern(
        rx(
            r"\bI(?:'m|\s+am)\s+(?:an?\s+)?" + _MODIFIER + r"(experienced|seasoned|senior|junior|professional|veteran|"
            r"qualified|certified|trained|licensed|novice|beginner|amateur)\s+(?P<role>[a-z][\w\-]+(?:\s+[a-z][\w\-"
            r"]+)?)"
            r"(?=\s*(?:$|[,.;!]|\s+(?:and|but|so|with|of)\b))"
        ),
        lambda m: _with_domain(
            {
                "qualified": "advanced",
                "certified": "advanced",
                "trained": "advanced",
                "licensed": "advanced",
                "amateur": "beginner",
            }.get(m.group(1).casefold(), _LEVELS.get(m.group(1).casefold())),
            m.group("role"),
        ),
    ),
    # "I don't know much about investing", "assume I know nothing about electronics"
    Pattern(
        rx(
            r"\bI\s+(?:don'?t|do\s+not)\s+(?:really\s+)?know\s+(?:much|a\s+lot|anything|a\s+thing)\s+about\s+"
            + _DOMAIN_EN
            + _DOMAIN_END
            + r"|\bI\s+know\s+(?:nothing|next\s+to\s+nothing|very\s+little|little|almost\s+nothing|barely\s+anything"
            r")\s+about\s+" + _DOMAIN_EN.replace("(", "(?P<d2>", 1) + _DOMAIN_END
        ),
        lambda m: _with_domain("beginner", m.group(1) or m.group("d2")),
        True,
    ),
    # "I only know a little HTML"
    Pattern(
        rx(
            r"\bI\s+(?:only\s+|just\s+|already\s+)?know\s+(a\s+little(?:\s+bit\s+of)?|a\s+bit\s+of|a\s+bit|very\s+"
            r"little|"
            r"basic|some|a\s+fair\s+bit\s+of|a\s+lot\s+of|a\s+lot\s+about|tons\s+about)\s+(?:about\s+)?"
            + _DOMAIN_EN
            + _DOMAIN_END
        ),
        lambda m: _with_domain(
            "intermediate"
            if m.group(1).casefold().startswith(("some", "a fair"))
            else "advanced"
            if m.group(1).casefold().startswith(("a lot", "tons"))
            else "beginner",
            m.group(2),
        ),
    ),
    # "somewhere between beginner and intermediate"
    Pattern(
        rx(
            r"\bbetween\s+(?:a\s+)?(beginner|novice|intermediate|advanced)\s+and\s+(?:an?\s+)?(intermediate|advanc"
            r"ed|expert)\b"
        ),
        lambda m: (
            _between(m.group(1), m.group(2)),
            _clean_domain(d.group(1))
            if (d := re.search(r"(?i)\b([\w+#.]+)-wise\b|\b(?:in|with|at|on)\s+([A-Za-z][\w+#.]*)", m.string))
            and d.group(1)
            else (_clean_domain(d.group(2)) if d else None),
        ),
    ),
    # "I'm a mechanical engineer by training"
    Pattern(
        rx(
            r"\bI(?:'m|\s+am)\s+(?:an?\s+)?(?P<role>[\w\-]+(?:\s+[\w\-]+)?)\s+by\s+(?:training|trade|profession|ed"
            r"ucation|background)\b"
        ),
        lambda m: _with_domain("advanced", m.group("role")),
    ),
    # "I'm a data scientist, so feel free to use technical terms"
    Pattern(
        rx(
            r"\bI(?:'m|\s+am)\s+(?:an?\s+)?(?P<role>[\w\-]+(?:\s+[\w\-]+){0,2}?)\s*,?\s+so\s+(?:you\s+can\s+|feel\s"
            r"+free\s+to\s+|"
            r"please\s+|no\s+need\s+to\s+|don'?t\s+)?(?:use\s+(?:technical|the\s+technical|jargon|proper)|skip\s+("
            r"?:the\s+)?"
            r"(?:basics|intro|fundamentals)|go\s+deep|be\s+technical|explain\s+(?:the\s+)?basics|dumb\s+it\s+down|"
            r"simplify)"
        ),
        lambda m: _with_domain("advanced", m.group("role")),
        True,
    ),
    # "I have a master's in statistics", "我有计算机硕士学位"
    Pattern(
        rx(
            r"\bI\s+(?:have|hold|got|earned|did|'ve\s+got)\s+(?:a|an|my)\s+(PhD|doctorate|master'?s|masters|MSc|MA"
            r"|MS|MBA|bachelor'?s|"
            r"BSc|BA|BS|degree)(?:\s+degree)?\s+(?:in|on)\s+" + _DOMAIN_EN + _DOMAIN_END
        ),
        lambda m: _with_domain("expert" if m.group(1).casefold() in ("phd", "doctorate") else "advanced", m.group(2)),
    ),
    Pattern(
        zh(r"我(?:有|拿了|读了|是)\s*([\u4e00-\u9fffA-Za-z]{2,8}?)(?:专业)?的?(博士|硕士|研究生|本科)(?:学位|文凭)?"),
        lambda m: _with_domain("expert" if m.group(2) == "博士" else "advanced", m.group(1)),
    ),
    # "I work as a senior backend developer"
    Pattern(
        rx(
            r"\bI\s+work\s+as\s+(?:an?\s+)?"
            + _MODIFIER
            + _LEVEL_ADJ
            + r"\s+(?:([\w+#.\-]+(?:\s+[\w+#.\-]+)?)\s+)??("
            + _ROLE
            + r")\b"
        ),
        _role_level,
    ),
    # "我是做数据分析的"
    Pattern(
        zh(r"我(?:是|一直是)(?:做|搞|干|学)\s*([\u4e00-\u9fffA-Za-z]{2,8}?)(?:出身)?的(?=$|[，,。])"),
        lambda m: _with_domain("advanced", m.group(1)),
    ),
    # "我学Swift才一个礼拜", "我用Figma刚两个月"
    Pattern(
        zh(
            r"我(?:已经)?(?:学|用|写|做|搞|玩|练|弹|跑|画)(?:了)?\s*"
            r"(?P<d>[A-Za-z][\w+#.\- ]{0,20}?|[\u4e00-\u9fff]{1,6}?)\s*"
            r"(?:才|刚|只|就|也就)(?:学了|用了|练了)?(?:快|差不多|大概|将近|不到)?"
            + _NUM_ZH
            + r"\s*(?:个)?(?P<u>礼拜|星期|周|天|个月|月|年)"
        ),
        _duration_zh,
    ),
    # "我跑步两年了", "我画画快十年了"
    Pattern(
        zh(
            r"我\s*(?!来|去|在|住|到|搬|结婚|毕业|认识|离开|回|等|没|上班|工作|失业|退休|生病|出国|留学|当|是|有|和|跟|已经)"
            r"(?P<d>[\u4e00-\u9fffA-Za-z+#.]{2,6}?)(?:了|已经|有)?\s*(?:快|差不多|大概|将近|超过)?"
            + _NUM_ZH
            + r"\s*(?P<u>年|个月)(?:多)?了"
        ),
        _duration_zh,
    ),
    # "我吉他弹了十年了"
    Pattern(
        zh(
            r"我\s*(?P<d>[\u4e00-\u9fffA-Za-z+#.]{1,8}?)\s*[\u4e00-\u9fff](?:了)\s*(?:快|差不多|大概|将近|超过)?"
            + _NUM_ZH
            + r"\s*(?P<u>年|个月)"
        ),
        _duration_zh,
    ),
    # "Networking is totally new territory for me"
    Pattern(
        rx(
            r"^"
            + _DOMAIN_EN
            + r"\s+(?:is|are)\s+(?:totally\s+|completely\s+|pretty\s+|all\s+|still\s+|fairly\s+|very\s+)?"
            r"(?:new|foreign|unknown|alien|unfamiliar|a\s+mystery|uncharted)(?:\s+territory)?\s+(?:to|for)\s+(?:me"
            r"|us)\b"
        ),
        lambda m: _with_domain("beginner", m.group(1)),
    ),
    # "My SQL is pretty basic", "my Spanish is rusty"
    Pattern(
        rx(
            r"^my\s+(?P<d>(?-i:[A-Z][\w+#.\-]*)(?:\s+[\w+#.\-]+)?|[a-z]+ing|[\w+#.\-]+(?=\s+(?:skills?|knowledge|l"
            r"evel|experience|background|abilit(?:y|ies))\b))\s+"
            r"(?:(?:skills?|knowledge|level|experience|background|abilit(?:y|ies))\s+)?(?:is|are)\s+"
            r"(?:(?:pretty|very|quite|fairly|still|really|super|a\s+bit|kind\s+of|basically|practically|pretty\s+much|"
            r"almost|close\s+to|next\s+to|more\s+or\s+less|honestly|probably|only|just|at\s+best)\s+)*"
            r"(?P<l>basic|rusty|limited|weak|elementary|zero|nil|none|minimal|poor|bad|terrible|"
            r"non-?existent|decent|okay|ok|solid|good|strong|excellent|fluent|advanced|intermediate|beginner-level"
            r"|native|so-so|average|mediocre|passable|great|top-notch|expert-level|professional-level)\b"
        ),
        lambda m: _with_domain(
            {
                "basic": "beginner",
                "rusty": "beginner",
                "limited": "beginner",
                "weak": "beginner",
                "elementary": "beginner",
                "nonexistent": "beginner",
                "non-existent": "beginner",
                "beginner-level": "beginner",
                "zero": "beginner",
                "nil": "beginner",
                "none": "beginner",
                "minimal": "beginner",
                "poor": "beginner",
                "bad": "beginner",
                "terrible": "beginner",
                "so-so": "intermediate",
                "average": "intermediate",
                "mediocre": "intermediate",
                "passable": "intermediate",
                "great": "advanced",
                "top-notch": "advanced",
                "expert-level": "expert",
                "professional-level": "advanced",
                "decent": "intermediate",
                "okay": "intermediate",
                "ok": "intermediate",
                "solid": "intermediate",
                "intermediate": "intermediate",
                "good": "advanced",
                "strong": "advanced",
                "excellent": "advanced",
                "fluent": "advanced",
                "advanced": "advanced",
                "native": "expert",
            }[m.group("l").casefold()],
            m.group("d"),
        ),
    ),
    # "I'm kind of intermediate with SQL", "I'm advanced in Go"
    Pattern(
        rx(
            _ME + r"\s+" + _MODIFIER + r"(beginner|intermediate|advanced|expert|junior|senior)(?:[- ]level)?\s+"
            r"(?:with|in|at|on)\s+" + _DOMAIN_EN + _DOMAIN_END
        ),
        _expertise(1, 2),
    ),
    Pattern(
        rx(
            _ME
            + r"""
                \s+(?:all\s+)?(?:completely\s+|totally\s+|very\s+|pretty\s+|quite\s+|fairly\s+|
                really\s+|still\s+|relatively\s+|brand\s+)?new\s+to\s+
            """
            + _DOMAIN_EN
            + _DOMAIN_END
        ),
        _needs_domain("beginner"),
    ),
    Pattern(
        rx(
            r"""
                \bI(?:\s+have|'ve)?\s+(?:just|only\ just|recently|only\ recently)\s+(?:started|begun|
                began|picked\ up)\s+(?:learning|to\ learn|with|using|studying|doing)?\s*
            """
            + _DOMAIN_EN
            + _DOMAIN_END
        ),
        _needs_domain("beginner"),
    ),
    Pattern(
        rx(
            r"""
                \bI(?:'m|\s+am)\s+(?:very\s+|highly\s+|quite\s+|pretty\s+|fairly\s+|reasonably\s+|really\s+|super\s+|
                extremely\s+|somewhat\s+)?(experienced|proficient|
                fluent|seasoned)\s+(?:in|with|at)\s+
            """
            + _DOMAIN_EN
            + _DOMAIN_END
        ),
        _expertise(1, 2),
    ),
    # "I've never used Docker before", "I've never done any frontend work"
    Pattern(
        rx(
            r"""
            \bI(?:'ve|\s+have)?\s+never\s+(?:really\s+|actually\s+|even\s+)?(?:used|touched|worked\s+(?:with|in|on)|
            done|tried|written|programmed\s+in|coded\s+in|learned|learnt|studied|played|cooked|set\s+up|
            dealt\s+with|deployed|built)\s+(?:any\s+|a\s+|an\s+|with\s+)?
            """
            + _DOMAIN_EN
            + _DOMAIN_END
        ),
        _needs_domain("beginner"),
        True,
    ),
    # "I have zero experience with finance stuff", "I'm decent at Excel", "I'm very good at chess"
    Pattern(
        rx(
            r"\bI\s+(?:have|'ve\s+got|got)\s+("
            + _PHRASE_LEVELS[0][0]
            + r")\s+(?:real\s+|practical\s+|prior\s+)?(?:experience|background|knowledge|exposure|training)\s+"
            r"(?:with|in|of|on|when\ it\ comes\ to)\s+" + _DOMAIN_EN + _DOMAIN_END
        ),
        lambda m: _with_domain("beginner", m.group(2)),
        True,
    ),
    Pattern(
        rx(
            r"\bI(?:'m|\s+am)\s+(?:probably\s+|maybe\s+|actually\s+)?(?:(?:reasonably|fairly|quite|somewhat|moderately|"
            r"pretty|very|really|fully)\s+(?=competent|decent|solid|comfortable|proficient))?(?:("
            + "|".join(p for p, _ in _PHRASE_LEVELS[1:])
            + r")\s+(?:at|in)|(decent|competent|solid|comfortable|proficient|fluent)\s+with)\s+"
            + _DOMAIN_EN
            + _DOMAIN_END
        ),
        lambda m: _with_domain(
            "advanced"
            if re.search(
                r"(?i)\b(?:very|really|fully|extremely|super|totally)\s+(?:comfortable|competent|proficient)",
                m.group(0),
            )
            else _phrase_level(m.group(1) or m.group(2)),
            m.group(3),
        ),
    ),
    # "I probably have an intermediate level of Spanish", "I have an advanced knowledge of SQL"
    Pattern(
        rx(
            r"\bI\s+(?:probably\s+|maybe\s+|already\s+)?(?:have|'ve\s+got)\s+(?:an?\s+)?"
            r"(beginner|basic|intermediate|advanced|expert|solid|good|deep|strong)(?:[- ]level)?\s+"
            r"(?:level|knowledge|understanding|grasp|command|skills?)\s+(?:of|in|with)\s+" + _DOMAIN_EN + _DOMAIN_END
        ),
        lambda m: (
            {
                "basic": "beginner",
                "solid": "intermediate",
                "good": "intermediate",
                "deep": "advanced",
                "strong": "advanced",
            }.get(m.group(1).casefold(), _LEVELS.get(m.group(1).casefold(), "intermediate")),
            _clean_domain(m.group(2)),
        ),
    ),
    Pattern(rx(r"\bI\s+know\s+my\s+way\s+around\s+" + _DOMAIN_EN + _DOMAIN_END), _needs_domain("intermediate")),
    Pattern(
        rx(r"\bI\s+know\s+" + _DOMAIN_EN + r"\s+(?:inside\ out|like\ the\ back\ of\ my\ hand|inside\ and\ out)\b"),
        _needs_domain("expert"),
    ),
    Pattern(
        rx(r"\bI\s+know\s+" + _DOMAIN_EN + r"\s+(?:really|very|pretty|quite)\s+well\b"),
        lambda m: _with_domain("advanced", m.group(1)),
    ),
    Pattern(
        rx(r"\bI\s+know\s+" + _DOMAIN_EN + r"\s+(?:fairly|reasonably)\s+well\b"),
        lambda m: _with_domain("intermediate", m.group(1)),
    ),
    Pattern(rx(r"\bI\s+(?:only\s+)?know\s+the\s+basics\s+of\s+" + _DOMAIN_EN + _DOMAIN_END), _needs_domain("beginner")),
    # "I've used pandas a fair bit"
    Pattern(
        rx(
            r"\bI(?:'ve|\s+have)\s+(?:used|worked\s+with|done|played\s+with)\s+"
            + _DOMAIN_EN
            + r"\s+(?:a\ fair\ bit|quite\ a\ bit|a\ good\ amount|some|a\ bit|a\ little|for\ a\ while|plenty)\b"
        ),
        _needs_domain("intermediate"),
    ),
    # "I've been writing JavaScript for about two years", "I've been using TypeScript daily at work for five years"
    Pattern(
        rx(
            r"""
            \b(?:I|we)(?:'ve|\s+have)\s+been\s+(?:using|writing|doing|working\s+(?:with|in|on)|coding\s+in|
            programming\s+in|developing\s+in|developing|playing|studying|learning|practi[cs]ing|speaking|
            building\s+with|running)\s+
            """
            + r"(?P<d>[A-Za-z0-9+#.][\w+#.'\-]*(?:\s+[\w+#.'\-]+){0,3}?)"
            + _ADVERBS
            + r"\s+for\s+(?:about\s+|around\s+|over\s+|almost\s+|nearly\s+|roughly\s+|more\s+than\s+|the\s+(?:past|l"
            r"ast)\s+)?" + _NUM_EN + r"\s+(?P<u>years?|months?|weeks?)\b"
        ),
        _duration_en,
    ),
    # "I've got about ten years of Java under my belt", "I have 3 years of experience with React"
    Pattern(
        rx(
            r"\b(?:I(?:'ve|\s+have)?\s+(?:got\s+|had\s+)?|with\s+)(?:about\s+|around\s+|over\s+|almost\s+|nearly\s"
            r"+|roughly\s+|"
            r"more\s+than\s+|just\s+|only\s+)?"
            + _NUM_EN
            + r"(?:\+|\s+plus)?\s+(?P<u>years?|months?)\s+(?:of\s+)?(?:(?:professional|hands-on|real|working)\s+)?"
            r"(?:experience\s+(?:with|in|doing)\s+)?(?P<d>[A-Za-z0-9+#.][\w+#.'\-]*(?:\s+[\w+#.'\-]+){0,2}?)"
            r"(?=\s+(?:experience|under\s+my\s+belt|behind\s+me)\b|$|[,.;!?]|\s+(?:and|but|so)\b)"
        ),
        _duration_en,
    ),
    Pattern(
        rx(
            r"\bI(?:'ve|\s+have)\s+(?:worked\s+(?:with|in|on)|used|done|written|coded\s+in|programmed\s+in|played|"
            r"studied|taught)\s+"
            + r"(?P<d>[A-Za-z0-9+#.][\w+#.'\-]*(?:\s+[\w+#.'\-]+){0,3}?)"
            + _ADVERBS
            + r"\s+for\s+(?:about\s+|around\s+|over\s+|almost\s+|nearly\s+|roughly\s+|more\s+than\s+|the\s+(?:past|l"
            r"ast)\s+)?" + _NUM_EN + r"\s+(?P<u>years?|months?|weeks?)\b"
        ),
        _duration_en,
    ),
    Pattern(
        rx(
            r"\bI(?:'m|\s+am)\s+(?:somewhere\s+in\s+(?:the\s+)?(?:middle|between)|middling|mid-level|in\s+the\s+mi"
            r"ddle|so-so)\s+"
            r"(?:with|in|at)\s+" + _DOMAIN_EN + _DOMAIN_END
        ),
        lambda m: _with_domain("intermediate", m.group(1)),
    ),
    # "I've been a data engineer for eight years"
    Pattern(
        rx(
            r"\bI(?:'ve|\s+have)\s+been\s+(?:an?\s+)?(?P<d>(?:[\w+#.\-]+\s+)?(?:[\w+#.\-]+\s+)?"
            + r"(?:"
            + _ROLE
            + r"|[a-z]+(?:ist|ian|er|or)s?|nurse|chef|cook|pilot))"
            + r"\s+for\s+(?:about\s+|around\s+|over\s+|almost\s+|nearly\s+|more\s+than\s+|the\s+(?:past|last)\s+)?"
            + _NUM_EN
            + r"\s+(?P<u>years?|months?)\b"
        ),
        _duration_en,
    ),
    Pattern(
        rx(
            r"\bI(?:'m|\s+am)\s+(?:still\s+|just\s+|only\s+|currently\s+)?(?:learning|studying)\s+"
            + _DOMAIN_EN
            + _DOMAIN_END
        ),
        _needs_domain("beginner"),
    ),
    # "I've only been coding for a few months": the verb is the domain
    Pattern(
        rx(
            r"\bI(?:'ve|\s+have)\s+(?:only\s+|just\s+|really\s+)?been\s+(?P<d>coding|programming|cooking|drawing|p"
            r"ainting|"
            r"running|climbing|swimming|investing|trading|writing|designing|drumming|singing|dancing)"
            + _ADVERBS
            + r"\s+for\s+(?:only\s+|just\s+|about\s+|around\s+|over\s+|almost\s+|nearly\s+|roughly\s+|more\s+than\s+)?"
            + _NUM_EN
            + r"\s+(?P<u>years?|months?|weeks?)\b"
        ),
        _duration_en,
    ),
    Pattern(
        rx(
            r"\bI(?:'m|\s+am)\s+(?:just\s+|only\s+|still\s+|really\s+)?(?:starting\s+out|getting\s+started|"
            r"getting\s+into|dipping\s+my\s+toes?|picking\s+up|learning\s+the\s+basics\s+of|a\s+newcomer\s+to)\s+"
            r"(?:with\s+|in\s+|into\s+|on\s+)?" + _DOMAIN_EN + _DOMAIN_END
        ),
        _needs_domain("beginner"),
    ),
    # "I teach calculus at university", "I maintain NumPy"
    Pattern(
        rx(
            r"\bI\s+(?:teach|lecture\s+(?:on|in)|maintain|co-maintain|wrote\s+a\s+book\s+on)\s+"
            + _DOMAIN_EN
            + r"(?=$|[,.;!?]|\s+(?:at|for|in|on|with|during|every|each|online|part-time|and|but|so|to)\b)"
        ),
        lambda m: _with_domain("expert", m.group(1)),
    ),
    Pattern(
        rx(
            r"\bI(?:'m|\s+am)\s+(?:a|an|one\s+of\s+the)\s+(?:core\s+)?(?:maintainers?|contributors?)\s+(?:of|to|on)\s+"
            + _DOMAIN_EN
            + _DOMAIN_END
        ),
        _needs_domain("expert"),
    ),
    # --- Chinese ---
    Pattern(
        zh(
            r"我(?:对|在)\s*([\w+#.\- ]{1,20}?)\s*(?:方面|上|这块)?(?:还|比较|很|非常|特别)?(不太熟悉|不熟悉|不太熟"
            r"|不熟)"
        ),
        _expertise(2, 1),
        True,
    ),
    # "我从来没用过Docker", "几乎没做过饭"
    Pattern(
        zh(
            r"(?:我|^)(?:从来|从|完全|根本|几乎|基本|基本上)?(?:都)?没(?:有)?(?:怎么)?(?:用过|碰过|接触过|学过|做过"
            r"|写过|玩过|弄过|"
            r"搞过|摸过|练过)\s*([\w+#.\- ]{1,20}?)(?:[，,。！!]|$|的)"
        ),
        _needs_domain("beginner"),
        True,
    ),
    Pattern(
        zh(
            r"""
            我(?:是|算是|算)(?:一个|一名|个|名|纯|完全的|彻底的|
            纯纯的)*\s*([\w+#.\- ]{1,20}?)?\s*(?:的|方面的|领域的)?(新手|初学者|小白|菜鸟|新人|
            入门者|专家|高手|老手|大牛|行家|大神|外行|门外汉|权威|泰斗|大拿)
            """
        ),
        _expertise(2, 1),
    ),
    # "我是资深的产品经理", "我们团队都是资深的iOS开发", "我大概算中级开发吧", "我是个刚入行的设计师"
    Pattern(
        zh(
            r"""
            我们?(?:团队|组)?(?:都|也)?(?:大概|应该|可能|基本)?(?:是|算是|算)?(?:一个|一名|个|名)?\s*(中级|资深|高级|
            初级|
            刚入行|刚入门|入门级|刚毕业)(?:的)?\s*([\w+#.\-\u4e00-\u9fff ]{1,12}?)(?:了|吧|啦)?(?=$|[，,。！!；;])
            """
        ),
        lambda m: (
            {"刚入行": "beginner", "刚入门": "beginner", "入门级": "beginner", "刚毕业": "beginner"}.get(
                m.group(1), _LEVELS.get(m.group(1))
            ),
            _clean_domain(m.group(2)),
        ),
    ),
    # "我算是Python中级水平", "我的英语是入门水平"
    Pattern(
        zh(
            r"我(?:的)?\s*([\w+#.\- ]{0,12}?)\s*(?:大概|应该|可能|基本)?(?:算是|是|属于|算|在)?\s*([\w+#.\- ]{0,12"
            r"}?)\s*"
            r"(初级|入门|中级|中等|中上|高级|专业|专家)(?:水平|级别|程度|阶段)"
        ),
        lambda m: (
            {
                "初级": "beginner",
                "入门": "beginner",
                "中级": "intermediate",
                "中等": "intermediate",
                "中上": "intermediate",
                "高级": "advanced",
                "专业": "advanced",
                "专家": "expert",
            }[m.group(3)],
            _clean_domain(m.group(1) or m.group(2)),
        ),
    ),
    # "我在数据分析方面是新手"
    Pattern(
        zh(
            r"我(?:在|对)\s*([\w+#.\-\u4e00-\u9fff ]{1,16}?)\s*(?:方面|上|这块|领域)(?:还|算|算是|完全|纯粹)?(?:是"
            r")?(?:一个|个|一名)?"
            r"(新手|初学者|小白|菜鸟|新人|专家|高手|老手|大牛|行家|外行|门外汉|权威|泰斗|大拿)"
        ),
        _expertise(2, 1),
    ),
    # "我是有经验的UI设计师"
    Pattern(
        zh(
            r"我们?(?:团队|组|公司|这边)?(?:都|全)?(?:是|算是)(?:一个|一名|个)?\s*(有经验|经验丰富|有多年经验|有丰富经验|没什么经验|没经验|"
            r"缺乏经验)的\s*"
            r"([\w+#.\-\u4e00-\u9fff ]{1,12}?)(?:了|吧|啦)?(?=$|[，,。！!；;])"
        ),
        lambda m: (
            "beginner" if m.group(1).startswith(("没", "缺")) else "advanced",
            _clean_domain(m.group(2)),
        ),
    ),
    # "我用Go写了三年后端"
    Pattern(
        zh(
            r"我(?:已经)?(?:用|拿)\s*(?P<d>[\w+#.\- ]{1,12}?)\s*(?:写|做|开发|搞|编程)了?\s*(?:快|差不多|大概|将近"
            r"|超过)?" + _NUM_ZH + r"\s*(?P<u>年|个月)"
        ),
        _duration_zh,
    ),
    # "我是Rust编译器的贡献者"
    Pattern(
        zh(
            r"我(?:是|算是)\s*([\w+#.\-\u4e00-\u9fff ]{1,16}?)\s*的(?:核心)?(?:贡献者|维护者|作者|开发者之一|讲师|"
            r"老师|教授)"
        ),
        _needs_domain("expert"),
    ),
    # "我做了十年Java后端", "我学日语两年了", "Python我写了五年"
    Pattern(
        zh(
            r"我(?:是|已经)*(?:做|写|用|学|搞|干|从事|玩|练|教)了?(?:快|差不多|大概|将近|超过)?"
            + _NUM_ZH
            + r"\s*(?P<u>年|个月|多年)(?:多)?(?:的)?\s*(?P<d>[\w+#.\-\u4e00-\u9fff ]{1,12}?)(?=$|[，,。！!；;]|了)"
        ),
        _duration_zh,
    ),
    Pattern(
        zh(
            r"我(?:已经)?(?:学|用|写|做|搞|玩|练|干|从事|教)(?:了)?\s*(?P<d>[\w+#.\-\u4e00-\u9fff ]{1,12}?)\s*(?:快"
            r"|差不多|大概|将近|超过)?" + _NUM_ZH + r"\s*(?P<u>年|个月)(?:多)?了"
        ),
        _duration_zh,
    ),
    Pattern(
        zh(
            r"(?:^|[，,])\s*(?P<d>[\w+#.\- ]{1,12}?)\s*我(?:已经)?(?:学|用|写|做|搞|玩|练)了?\s*(?:快|差不多|大概|"
            r"将近|超过)?" + _NUM_ZH + r"\s*(?P<u>年|个月)"
        ),
        _duration_zh,
    ),
    Pattern(
        zh(
            r"我(?:中级|资深|高级)?\s*(?:是|算是)?(?:一个|一名)?(中级|资深)\s*([\w+#.\- ]{1,20}?)?\s*(?:的)?(?:工程"
            r"师|开发者|开发|程序员|用户|设计师|分析师)"
        ),
        _expertise(1, 2),
    ),
    Pattern(zh(r"我(?:刚|才|刚刚)(?:开始)?(?:学习?|接触|入门)\s*([\w+#.\- ]{1,20})"), _needs_domain("beginner")),
    Pattern(zh(r"我(精通|擅长)\s*([\w+#.\- ]{1,20})"), _expertise(1, 2)),
    Pattern(zh(r"我对\s*([\w+#.\- ]{1,20}?)\s*(?:非常|很|比较|特别)?(熟悉|很熟|精通)"), _expertise(2, 1)),
    # "我对编程基本是零基础", "我对网络这块一窍不通", "我厨艺基本为零", "SQL我会一点", "Excel我算熟练"
    Pattern(
        zh(
            r"(?:我对|我在|^|[，,])\s*([\w+#.\-\u4e00-\u9fff ]{1,20}?)\s*(?:这块|这方面|方面)?\s*(?:我)?(?:的)?(?:"
            r"水平)?(?:基本上?|几乎|完全|"
            r"算是?|还算|也算|大概|应该|可能|真的|其实)?(?:是)?(?:用得|写得|玩得|学得|做得|说得|讲得)?(?:还|也)?(?"
            r":很|非常|特别|比较|挺)?(" + _ZH_DEGREE_ALT + r")(?:了|的|啦|吧)?(?=$|[，,。！!；;]|了|的)"
        ),
        lambda m: _with_domain(_ZH_DEGREE.get(m.group(2)), m.group(1)),
        True,
    ),
]


# --- cue fallback: how the user describes their level, when no pattern above matched ----------------
# The level is read from what the user says about their experience; the domain from where it is said
# ("in Swift", "new to Kubernetes", "机器学习我…", "我对网络…"). Checked in this order: a denied expert
# ("no pro", "不算精通") is intermediate before "精通" reads as expert.
_SELF_EN = rx(
    r"\b(?:I|I'm|I've|I'd|my|me|myself|we|we're|we've|our\s+team|my\s+team)\b|"
    r"\b(?:newbie|noob|beginner|novice|expert|veteran|pro|amateur|newcomer|rookie|greenhorn|learner)(?:\s+here\b|"
    r"\b.{0,40}\bhere\s*$)|"
    r"^(?:\w+\s+){0,2}(?:years?|decades?|months?)\s+of\s+(?:\w+\s+)?(?:experience|practice|work)\b"
)
_CUES_EN: list[tuple[str, re.Pattern[str]]] = [
    (
        "intermediate",
        rx(
            r"""
            \b(?:(?:I'm|I\s+am)\s+)?(?:no|not\s+an?|not\s+really\s+an?|far\s+from\s+an?)\s+(?:pro|expert|guru|master|
            specialist)\b|
            \bget\s+(?:around|by)\b|\bcomfortable\s+with\s+the\s+basics\b|\bknow\s+(?:the\s+|my\s+)?basics\b|
            \bnothing\s+fancy\b|\bsome\s+(?:experience|background|familiarity)\b|\bfamiliar\s+with\b|\bmoderately\b|
            \bhalf-decent\b|\bmid-level\b|\bintermediate\b|\bdecent\b|\bhandle\s+the\s+basics\b|
            \bsomewhere\s+in\s+(?:the\s+)?(?:middle|between)\b|\bin\s+the\s+middle\b|\bmiddle\s+of\s+the\s+road\b|
            \bin\s+between\b|\bnot\s+(?:a|really\s+a)\s+(?:beginner|novice|newbie)\b|\bokay\b|\bnothing\s+special\b|
            \bcompetent\b|\bserviceable\b|\bno\s+longer\s+a\s+(?:beginner|novice)\b|
            \bworking\s+knowledge\b|\bso-so\b|\bokay-?ish\b|\baverage\b|\bmiddling\b|\bmediocre\b|\bpassable\b|
            \bfar\s+from\s+(?:fluent|perfect|an?\s+expert|a\s+pro|advanced)\b|\bnot\s+(?:yet\s+)?fluent\b|
            \bbasic\s+conversations?\b|\bconversational\b|\benough\s+to\s+(?:get\s+by|be\s+dangerous|manage)\b|
            \bcan\s+(?:write|hold|build|do|read|manage|handle|make|put\s+together|follow|understand|get\s+through)\s+
            (?:\w+\s+){0,2}?(?:basic|simple|small|easy|everyday)\b|\bnothing\s+(?:complex|too\s+complex|huge|advanced|
            too\s+advanced|crazy|serious|heavy)\b|\bnot\s+(?:great|amazing|bad)\b|\breasonably\b|\bfairly\s+(?:good|comfortable|
            confident|competent)\b
            """
        ),
    ),
    (
        "expert",
        rx(
            r"""
            \b(?:PhD|doctorate|thesis|dissertation|postdoc)\b|\b(?:taught|teach|teaching|lecture|lecturing)\b|
            \b(?:maintainer|co-?maintain|core\s+(?:dev|developer|contributor|team|committer)|committer|
            contributor\s+to)\b|
            \bwrote\s+(?:the|a)\s+book\b|\bauthor\s+of\b|\bworld[- ]class\b|\b(?:an?\s+)?authority\s+on\b|
            \b(?:recogni[sz]ed|renowned|leading|well-known|published|certified|top|true|genuine|real|bona\s+fide)\s+
            (?:expert|specialist|authority)\b|(?<!no\s)(?<!not\s)(?<!not\san\s)(?<!far\sfrom\san\s)\bexpert\b|
            \b(?:contribut(?:e|ed|ing|or)\s+(?:to|on)|review(?:ing)?\s+(?:changes|patches|PRs)\s+(?:to|for|in))\b|
            \b(?:standards?|steering|technical)\s+committee\b|\bprofessor\b|\bspeak\s+at\s+conferences\b|
            \b(?:one\s+of\s+the\s+(?:people|authors|engineers|developers|designers)\s+who|I)\s+(?:co-?)?(?:wrote|created|
            designed|invented|authored|architected)\s+(?:the|parts?\s+of\s+the)\s+(?-i:[A-Z])
            """
        ),
    ),
    (
        "advanced",
        rx(
            r"""
            \b(?:shipped|built|launched|run|running|ran)\s+(?:\w+\s+){0,3}?(?:production|apps?|systems?|services?|
            products?)\b|
            \bprofessionally\b|\bfor\s+a\s+living\b|\b(?:a|over\s+a|more\s+than\s+a)\s+decade\b|\bdecades?\b|
            \bextensive(?:ly)?\b|\bdeep\s+(?:experience|knowledge|expertise)\b|\bseasoned\b|\bveteran\b|
            \b(?:lots|plenty|tons|years)\s+of\s+experience\b|\bknow\s+(?:it|this|that)\s+inside\s+out\b|
            \b(?:every\s+day|daily|all\s+day|day\s+in\s+day\s+out)\s+(?:at|for)\s+work\b|\bat\s+work\s+every\s+day\b|
            \bday\s+job\b|\b(?:worked|working)\s+as\s+an?\b|\b(?:really|very|pretty|super)\s+good\b|
            \bgreat\s+at\b|\bstrong\s+(?:in|at|with)\b|\bfluent\b|\bproficient\b|\bskilled\b|\bexperienced\b|
            \bmany\s+years\b|\byears\s+(?:of|in|doing|working)\b|
            \b(?:every\s+(?:single\s+)?day|daily|day\s+in,?\s+day\s+out)\b|
            \b(?:very|really|extremely|super|totally|completely)\s+comfortable\b|
            \baround\s+the\s+block\b|\bsince\s+(?:college|university|uni|high\s+school|school|I\s+was\s+(?:a\s+kid|
            \d+|young|a\s+teen)|
            childhood|the\s+(?:90s|80s|2000s|nineties|eighties)|(?:19|20)\d\d)\b|\bold\s+hand\b|
            \bknow\s+my\s+(?:stuff|way)\b|\bknow\s+what\s+I'?m\s+doing\b
            """
        ),
    ),
    (
        "beginner",
        rx(
            r"""
            \bnew\s+to\b|\bbeginners?\b|\bhobbyist\b|\brookie\b|\bgreenhorn\b|\bfirst-timer\b|\btyro\b|
            \bstarted\s+(?:learning|studying|playing|practicing|practising|using|coding|taking|doing)\b|
            \b(?:days|weeks|a\s+month|(?:a\s+)?(?:few|couple\s+of|two|three|\d)\s+months)\s+ago\b|\b(?:pretty\s+|very\s+|still\s+|a\s+bit\s+|really\s+)green\b|
            \bamateur\b|\bweekend\s+warrior\b|\bnovice\b|\bnewbie\b|\bnoob\b|
            \bdabbled\b|\bdabbling\b|
            \bnever\s+(?:really\s+|actually\s+)?(?:used(?!\s+to\b)|built|done|tried|touched|worked|learned|studied|
            written|coded)\b|
            \bjust\s+(?:started|starting|began|getting\s+started)\b|(?:\bnot|
            n't)\s+(?:really\s+)?my\s+(?:strong\s+suit|forte|thing|area)\b|
            \b(?:zero|no|little|limited|minimal)\s+(?:real\s+)?(?:experience|background|knowledge)\b|\bclueless\b|
            \b(?:pretty|very|super|really)\s+basic\b|\brusty\b|\bweak\s+(?:at|in|with)\b|\bstill\s+learning\b|
            \bbarely\s+know\b|\bdon'?t\s+know\s+(?:much|anything)\s+about\b|\blost\s+when\s+it\s+comes\s+to\b|
            \bfirst[- ]year\b|\bfirst[- ]time\b|\bfreshman\b|\binexperienced\b|\bdon'?t\s+know\s+the\s+first\s+thing\b|
            \b(?:a|one|two|three|a\s+few|a\s+couple\s+of|few|\d+)\s+(?:days?|weeks?|months?)\s+into\b|
            \b(?:only|just)\s+(?:picked\s+up|started|began|got\s+into)\b|\bonly\s+been\s+\w+ing\b|
            \bnon-?existent\b|\bfrom\s+scratch\b|\bnewcomer\b|\bstarter\b|\blearning\s+the\s+ropes\b|\bbrand\s+new\b|
            \bgo\s+easy\s+on\s+me\b|\bdumb\s+it\s+down\b|\bexplain\s+like\s+I'?m\s+(?:five|5)\b|\bkn[eo]w\s+nothing\b|
            \bhaven'?t\s+(?:really\s+)?(?:used|done|tried|touched|learned|studied)\b|\bno\s+idea\s+(?:how|about)\b
            """
        ),
    ),
]
_DOMAIN_SPOT_EN = [
    rx(r"\bwhen\s+it\s+comes\s+to\s+" + _DOMAIN_EN + _DOMAIN_END),
    rx(
        r"\b(?:new\s+to|dabbled\s+in|dabbling\s+in|basics\s+of|thesis\s+on|dissertation\s+on|authority\s+on|book\s+on|"
        r"experience\s+(?:with|in)|background\s+in|knowledge\s+of|familiar\s+with|around\s+in|by\s+in|teach|taught|"
        r"maintainer\s+of|contributor\s+to|author\s+of)\s+" + _DOMAIN_EN + _DOMAIN_END
    ),
    rx(
        r"\b(?:using|used|use|writing|wrote|write|doing|did|do|coding\s+in|programming\s+in|working\s+(?:with|in|on)|"
        r"worked\s+(?:with|in|on)|built|build|shipped)\s+(?:\w+\s+){0,3}?(?:in|with)\s+" + _DOMAIN_EN + _DOMAIN_END
    ),
    rx(
        r"\b(?:doing|using|writing|coding|practicing|practising|studying|learning)\s+"
        + _DOMAIN_EN
        + r"(?=\s+(?:professionally|for|since|daily|at\s+work)\b|$|[,.;!?])"
    ),
    rx(r"^" + _DOMAIN_EN + r"\s+(?:isn'?t|is\s+not|is|are|aren'?t)\s+(?:really\s+|exactly\s+)?(?:not\s+)?my\b"),
    # "my Spanish is …", "my SQL skills are …"; not "my knees are shot from years of basketball"
    rx(
        r"\bmy\s+(?P<d>[A-Za-z][\w+#.\-]*(?:\s+[A-Za-z][\w+#.\-]*)?)\s+(?:(?:skills?|knowledge|background|level|"
        r"experience|chops)\s*(?:is|are)|is)\b"
    ),
    rx(
        r"\b(?:the\s+first\s+thing\s+about|first-year|know\s+nothing\s+about|knowledge\s+of|picked\s+up|started\s+(?:with|on)?|"
        r"been\s+(?:learning|doing|playing|using|studying|practicing|coding\s+in|writing)|no\s+idea\s+about|"
        r"haven'?t\s+(?:really\s+)?(?:used|done|tried|touched|learned|studied)|speak|contributor\s+to|contributed\s+to|"
        r"changes\s+to|committee\s+(?:for|on)|professor\s+of|do|does|building|designing|developing|running|managing|"
        r"teaching|studying|practicing|practising|playing|learning|work\s+with|work\s+in|working\s+with)\s+"
        + _DOMAIN_EN
        + _DOMAIN_END
    ),
    rx(r"\b(?:in|with|at|on)\s+" + _DOMAIN_EN + _DOMAIN_END),
]
_CAPITALIZED = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][\w+#.]*(?:\s+[A-Z][\w+#.]*)?)")
# "a hobbyist guitarist", "an experienced nurse", "a self-taught web developer": the role names the skill
_ROLE_SPOT_EN = rx(
    r"\b(?:a|an|of|all)\s+(?:[\w\-]+\s+){0,2}?(?P<role>(?:[a-z]+(?:ist|ian|or|er|ant|ect|man|woman))|nurse|chef|cook|pilot|"
    r"dev|coder|analyst|scientist|teacher|doctor|lawyer|accountant|architect|designer|student)s?\b"
)
_ROLE_DOMAIN = {
    "guitarist": "guitar",
    "pianist": "piano",
    "violinist": "violin",
    "drummer": "drums",
    "bassist": "bass",
    "cellist": "cello",
    "photographer": "photography",
    "translator": "translation",
    "programmer": "programming",
    "coder": "programming",
    "dev": "programming",
    "developer": "programming",
    "engineer": "engineering",
    "designer": "design",
    "writer": "writing",
    "runner": "running",
    "swimmer": "swimming",
    "climber": "climbing",
    "cyclist": "cycling",
    "baker": "baking",
    "cook": "cooking",
    "chef": "cooking",
    "painter": "painting",
    "singer": "singing",
    "dancer": "dancing",
    "investor": "investing",
    "trader": "trading",
    "gardener": "gardening",
}
_NOT_ROLES = {
    "user",
    "member",
    "person",
    "owner",
    "customer",
    "manager",
    "other",
    "number",
    "order",
    "matter",
    "color",
    "error",
    "year",
    "letter",
    "paper",
    "computer",
    "server",
    "corner",
    "summer",
    "winter",
    "answer",
    "power",
    "water",
    "dinner",
    "partner",
    "mother",
    "father",
    "brother",
    "sister",
    "daughter",
    "border",
    "cluster",
    "container",
    "player",
    "chapter",
    "editor",
    "monitor",
    "motor",
    "doctor",
    "sector",
    "factor",
    "visitor",
    "actor",
    "mentor",
    "tutor",
    "operator",
    "elevator",
    "calculator",
    "professor",
}
_NOT_DOMAIN_WORDS = {"i", "i'm", "i've", "i'd", "phd", "me", "we", "ok", "okay", "us", "anything", "everything"}


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


# an aspiration is a goal, not a level ("my ambition is to get a PhD")
_ASPIRATION = zh(
    r"""
    (?i:\b(?:want|wants|wanted|hope|hoping|plan|planning|goal|ambition|dream|aim|aiming|would\s+like|'d\s+like|wish|
    going\s+to|will|intend|someday|one\s+day|toward|towards|becoming|to\s+become|trying|aiming|hoping)\b)|想|希望|打算|计划|规划(?!器)|
    目标|梦想|愿望|心愿|准备|将来|以后|争取|努力
    """
)


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


_SELF_ZH = zh(r"我|咱")
_ROLE_DOMAIN_ZH = {
    "摄影师": "摄影",
    "翻译": "翻译",
    "护士": "护理",
    "会计": "会计",
    "程序员": "编程",
    "设计师": "设计",
    "厨师": "烹饪",
    "律师": "法律",
    "医生": "医学",
    "老师": "教学",
    "教师": "教学",
    "司机": "驾驶",
    "画家": "绘画",
    "歌手": "唱歌",
    "作家": "写作",
    "记者": "新闻",
    "吉他手": "吉他",
    "鼓手": "鼓",
}
_CUES_ZH: list[tuple[str, re.Pattern[str]]] = [
    (
        "intermediate",
        zh(
            r"中级|中等|能独立(?:开发|完成|做)|不算精通|算不上精通|谈不上精通|不敢说精通|没到精通|还算会用|会用|还"
            r"行|一般般|马马虎虎|还可以|够用|能应付|半吊子|中等水平|(?:简单|基础|基本"
            r"|日常)的?[^，,。]{0,6}(?:没问题|能做|可以|会|能应付|能搞定)|离(?:精通|专家|高手)还?(?:差|远)|不算(?:新手|小白|菜鸟|高手|专家)|"
            r"不是(?:新手|小白)了|算不上(?:高手|专家|大神)|谈不上(?:高手|专家)|凑合|能看懂|能读懂|会一点(?!点)|懂一些|入门了|水平一般|"
            r"一般水平|不上不下|中不溜|还算可以|还凑合|勉强|还算熟悉?|算是?熟悉?(?!练)|介于[^，,。]{1,8}之间|[^，,。]{1,6}就不行了|"
            r"(?:高级|复杂|难)的?[^，,。]{0,6}(?:不太|不)(?:会|行|懂|熟)"
        ),
    ),
    (
        "expert",
        zh(
            r"精通|专家|大牛|大神|权威|内核开发者|核心开发者|核心贡献者|贡献者|维护者|committer|博士|出过书|讲师|教"
            r"授|教这个|(?:写|出)过(?:一本|几本|两本)?[^，,。]{0,12}书|在(?:大学|学校|高校|培训机构)[^，,。]{0,4}教|教[^，,。]{2,10}(?:课|原理)|"
            r"标准委员会|委员会成员|行业专家|公认|核心团队|核心成员|核心开发|创始成员|大师|宗师|国手|书(?:就)?是我写的|是我写的书|"
            r"(?:就)?是我(?:参与|亲手|一手|主导)?(?:写|开发|设计|做|搭|发明)的|"
            r"我写的(?:那本)?书"
        ),
    ),
    (
        "advanced",
        zh(
            r"出身|老用户|老玩家|老司机|熟手|老手|资深|很熟|挺熟|熟练|十几年|二十年|多年|好多年|好些年|常年|科班|专"
            r"业的|[五六七八九十]+年|吃这碗饭|驾轻就熟|轻车熟路|很强|挺强|特别强|非常强|很厉害|挺厉害|很牛|很流利|非常流利|流利|"
            r"经验丰富|有[^，,。]{0,4}年(?:的)?(?:工作)?经验|多年经验|每天(?:工作)?都(?:在)?用|天天(?:都)?用|靠这个吃饭|专业(?!知识|术语|的问题)|职业|"
            r"从(?:19|20)\d\d年(?:开始|起|就)|"
            r"很在行|挺在行|拿手|擅长|很溜|挺溜|得心应手|玩得转|高级|(?:每天|天天|整天|成天)(?:都)?(?:跟|和|在)[^，,。]{1,16}打交道|"
            r"打交道"
        ),
    ),
    (
        "beginner",
        zh(
            r"不太了解|不了解|了解不多|什么都不懂|啥都不懂|皮毛|略知一二|一知半解|门外汉|外行|小白|新手|菜鸟|入门|"
            r"刚接触|刚学|刚开始学|刚上手|没学过|没用过|没碰过|没接触过|不太会|不怎么会|一"
            r"点点|零基础|一窍不通|不太懂|不懂|不会|基础(?:很|非常|特别|比较|太)?(?:差|薄弱|弱|为零)|没(?:什么)?基础|第一次(?:接触|学|用|做|玩|碰)|"
            r"从零开始|刚(?:开始|入门|起步)|生疏|很生|一无所知|不熟|没经验|没什么经验|缺乏经验|初学|初级|才(?:开始|学|接触|入门)|"
            r"纯属新手|(?:个|几)(?:礼拜|星期|周|月)前(?:才|刚)?(?:开始)?学"
        ),
    ),
]
_DOMAIN_SPOT_ZH = [
    zh(r"([A-Za-z][A-Za-z0-9+#.\-]*(?:\s+[A-Za-z][A-Za-z0-9+#.\-]*)?)"),
    zh(r"是([\u4e00-\u9fff]{2,6}?)(?:的)?(?:大师|专家|高手|老手|新手|选手|爱好者|玩家)"),
    zh(
        r"(?:不懂|不会|不了解|不熟悉|不太懂|不太会|精通|擅长|熟悉|很熟|第一次接触|刚接触|接触|教|自学的?)\s*([\u4e00-\u9fff]{2,8}?)"
        r"(?:了|的|$|[，,。；;！!])"
    ),
    zh(r"(?:写|出)过(?:一本|几本|两本)?([\u4e00-\u9fff]{2,10}?)(?:方面)?的?书"),
    zh(r"我(?:的)?([\u4e00-\u9fff]{2,6}?)(?:的)?(?:基础|底子|功底)"),
    zh(r"我([\u4e00-\u9fff]{2,6}?)(?:说|写|用|弹|玩|做|打|画|唱|讲|下|开)得"),
    zh(
        r"(?:有[^，,。]{0,4}年(?:的)?(?:工作)?经验的|专业|职业|资深|高级)(?:的)?([\u4e00-\u9fff]{2,6}?)"
        r"(?:了|吧|$|[，,。；;！!])"
    ),
    zh(r"在([\u4e00-\u9fff]{2,8}?)(?:行业|领域|圈|方面)(?:干|做|待|混)"),
    zh(r"(?:跟|和)([\u4e00-\u9fffA-Za-z]{2,10}?)打交道"),
    zh(r"是(?:经验丰富|有经验|资深|专业)的([\u4e00-\u9fff]{2,8}?)(?:了|吧|$|[，,。；;！!])"),
    zh(r"我的([\u4e00-\u9fff]{2,8}?)(?:水平|能力)?(?:算|是|还|大概|也|基本|应该)"),
    zh(r"^([\u4e00-\u9fff]{2,8}?)(?:这块|这方面|方面)?\s*(?:我们?|咱)"),
    zh(r"(?:对|在)([\u4e00-\u9fff]{2,8}?)(?:这块|这方面|方面|上|领域)"),
    zh(
        r"(?:入门|接触|学|学了|做了|搞了|写了|干了)(?:[一二两三四五六七八九十几\d]+年)?(?:的)?([\u4e00-\u9fff]{2,6"
        r"}?)(?:出身|的|了|$|[，,。；;！!])"
    ),
    zh(r"(?:是|都是)([\u4e00-\u9fffA-Za-z]{1,8}?)的?(?:老用户|老玩家|老司机|老手|熟手)"),
    zh(r"(?:都是|是)(?:个|一个|一名)?([\u4e00-\u9fff]{2,8}?)(?:工程师|开发者|开发|程序员|设计师|分析师)"),
]


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


_LEVEL_ZH_WORDS = {
    "流利": "advanced",
    "好": "advanced",
    "很好": "advanced",
    "溜": "advanced",
    "熟练": "advanced",
    "地道": "advanced",
    "强": "advanced",
    "厉害": "advanced",
    "牛": "advanced",
    "在行": "advanced",
    "拿手": "advanced",
    "熟": "advanced",
    "扎实": "advanced",
    "不错": "intermediate",
    "一般": "intermediate",
    "马马虎虎": "intermediate",
    "还行": "intermediate",
    "凑合": "intermediate",
    "不好": "beginner",
    "很差": "beginner",
    "差": "beginner",
    "薄弱": "beginner",
    "弱": "beginner",
    "为零": "beginner",
}
_EXPERTISE += [
    # "我会一点吉他", "我只会一点点日语"
    Pattern(
        zh(
            r"我(?:也|还|就|只|大概|多少)?(?P<l>会一点点|懂一点点|只会一点|会一点|会一些|懂一点|懂一些|会点|懂点|略懂|会)(?:儿)?\s*"
            r"(?P<d>[A-Za-z][\w+#.\- ]{0,20}?|[\u4e00-\u9fff]{2,6}?)(?=$|[，,。；;！!]|了|的)"
        ),
        lambda m: (
            _with_domain(
                "intermediate" if m.group("l") == "会" else _ZH_DEGREE.get(m.group("l"), "intermediate"), m.group("d")
            )
            if m.group("l") != "会" or re.search(r"不算新手|还行|一般|没问题|凑合", m.string)
            else None
        ),
    ),
    # "我没有化学背景", "我没什么编程基础"
    Pattern(
        zh(
            r"我(?:完全|根本|几乎|基本)?(?:没有|没)(?:任何|什么|一点)?\s*"
            r"(?P<d>[A-Za-z][\w+#.\- ]{0,20}?|[\u4e00-\u9fff]{2,6}?)\s*(?:的)?"
            r"(?:背景|基础|经验|底子|功底)"
        ),
        lambda m: _with_domain("beginner", m.group("d")),
        True,
    ),
    # "我完全不懂机器学习", "我根本不会游泳"
    Pattern(
        zh(
            r"我(?:完全|根本|一点都|一点也|基本|压根|真的)?(?:不懂|不会|不了解|不熟悉|不太懂|不太会|没学过|没接触过)\s*"
            r"(?P<d>[A-Za-z][\w+#.\- ]{0,20}|[\u4e00-\u9fff]{2,8}?)(?=$|[，,。；;！!]|的|这)"
        ),
        lambda m: _with_domain("beginner", m.group("d")),
        True,
    ),
    # "我的统计学基础很差", "我数学底子不错"
    Pattern(
        zh(
            r"我(?:的)?\s*(?P<d>[A-Za-z][\w+#.\- ]{0,20}?|[\u4e00-\u9fff]{2,6}?)\s*(?:的)?(?:基础|底子|功底)(?:还|也)?"
            r"(?:很|非常|比较|特别|太|挺|相当)?(?P<l>差|薄弱|弱|为零|不错|扎实|好|一般)"
        ),
        lambda m: _with_domain(_LEVEL_ZH_WORDS.get(m.group("l")), m.group("d")),
    ),
    # "我德语说得很流利", "我吉他弹得马马虎虎"
    Pattern(
        zh(
            r"我(?:的)?\s*(?P<d>[A-Za-z][\w+#.\- ]{0,20}?|[\u4e00-\u9fff]{1,6}?)\s*"
            r"(?:说|写|用|弹|玩|做|打|画|唱|讲|下|开|学)得"
            r"(?:还|也)?(?:很|非常|特别|挺|比较|相当|算|超)?(?P<l>流利|很好|好|溜|熟练|地道|不错|一般|马马虎虎|还行|凑合|不好|很差|差)"
        ),
        lambda m: _with_domain(_LEVEL_ZH_WORDS.get(m.group("l")), m.group("d")),
    ),
    # "我SQL很强"
    Pattern(
        zh(
            r"我(?:的)?\s*(?P<d>[A-Za-z][\w+#.\- ]{0,20}?|[\u4e00-\u9fff]{2,6}?)\s*(?:水平|能力)?"
            r"(?:很|非常|特别|挺|相当|超)"
            r"(?P<l>强|厉害|牛|在行|拿手|熟|流利|地道|熟练)(?=$|[，,。；;！!]|的|了)"
        ),
        lambda m: _with_domain(_LEVEL_ZH_WORDS.get(m.group("l")), m.group("d")),
    ),
    # "我是专业翻译", "我是职业摄影师"
    Pattern(
        zh(
            r"我(?:是|算是)(?:一名|一个|个|名)?(?:专业|职业)(?:的)?\s*(?P<d>[\u4e00-\u9fff]{2,6}?)(?=$|[，,。；;！!]|了)"
        ),
        lambda m: _with_domain("advanced", _ROLE_DOMAIN_ZH.get(m.group("d"), m.group("d"))),
    ),
    # "我是个有十年经验的护士"
    Pattern(
        zh(
            r"我(?:是|算是)(?:一名|一个|个|名)?有\s*(?:快|差不多|大概|将近|超过)?"
            + _NUM_ZH
            + r"\s*(?P<u>年|个月)多?(?:的)?(?:工作)?经验的\s*(?P<d>[\u4e00-\u9fffA-Za-z]{2,8}?)(?=$|[，,。；;！!]|了)"
        ),
        lambda m: _role_duration_zh(m),
    ),
    # "我在大学教编译原理", "我写过一本分布式系统的书"
    Pattern(
        zh(
            r"我(?:在[\u4e00-\u9fff]{2,6})?(?:教|讲授|主讲)\s*(?P<d>[\u4e00-\u9fffA-Za-z+#]{2,10}?)(?:课)?"
            r"(?=$|[，,。；;！!]|的|了|好多年|多年|[一二两三四五六七八九十几\d]+年)"
        ),
        lambda m: _with_domain("expert", m.group("d")),
    ),
    Pattern(
        zh(r"我(?:写|出)过(?:一本|几本|两本|好几本)?\s*(?P<d>[\u4e00-\u9fffA-Za-z+#]{2,10}?)(?:方面|相关)?的?书"),
        lambda m: _with_domain("expert", m.group("d")),
    ),
    # "我是第一次接触量化交易"
    Pattern(
        zh(
            r"我(?:是)?(?:第一次|头一回|刚刚?)(?:接触|学|用|玩|碰|做)\s*"
            r"(?P<d>[A-Za-z][\w+#.\- ]{0,20}|[\u4e00-\u9fff]{2,8}?)"
            r"(?=$|[，,。；;！!]|的)"
        ),
        lambda m: _with_domain("beginner", m.group("d")),
    ),
    # a cue reads a level only where one of its cues is (the gate: all of them in one pattern)
    Pattern(rx(r"^.+$"), _expertise_cue_en, True, rx("\n|".join(cue.pattern for _, cue in _CUES_EN))),
    Pattern(zh(r"^.*[\u4e00-\u9fff].*$"), _expertise_cue_zh, True, zh("\n|".join(cue.pattern for _, cue in _CUES_ZH))),
]


def _expertise_hit(value: tuple[str, str | None], match: re.Match[str]) -> Hit:
    level, domain = value
    attribute = "profile.expertise" + (f".{slugify(domain)}" if domain else "")
    return Hit("expertise", Kind.PREFERENCE, attribute, level, confidence=0.85)


# a level word that is not about the user: "a beginner's guide", "for beginners", "专家意见", "新手指南"
_NOT_ABOUT_ME = zh(
    r"""
    (?i:\b(?:beginner|novice|expert|newbie|noob|amateur|pro)(?:'s|s')|\bfor\s+(?:a\s+|the\s+|complete\s+|total\s+|
    absolute\s+)?(?:beginners?|novices?|experts?|dummies|newbies|noobs|amateurs)\b|\bexperts?\s+(?:say|think|agree|
    recommend|opinions?|advice)\b)|新手(?:指南|教程|入门|村|礼包|任务|期)|入门(?:指南|教程|书|课)|专家(?:意见|建议|说|认为|们)|给新手|适合新手|
    适合初学者|初学者(?:指南|教程)
    """
)
# narration of the past or a question about levels: "I used to be a beginner", "when I was new to it"
_EXPERTISE_GUARD = zh(
    r"""
    (?i:\b(?:used\s+to\s+be|back\s+when|when\s+I\s+was|back\s+then|years\s+ago\s+I\s+was|as\s+a\s+kid\s+I\s+was|
    yesterday|last\s+night|I\s+was\s+focused|goals?|dreams?|ambitions?|aspirations?|I'?d\s+(?:love|like)\s+to|
    (?:started|starting|start)\s+(?:a|my|the)\s+(?:new\s+)?(?:job|position|role|internship)|
    I\s+(?:want|hope|wish|plan|aim)\s+to|dream\s+of|by\s+the\s+time)\b|目标|梦想|理想|愿望|心愿|希望|想要|立志|争取|
    想(?=[^，,。]{0,8}(?:成为|当上|变成|说一口|学会|学好|考))|
    ^(?:how|what|which|why|is|are|do|does|can|should)\b)|以前(?:我)?(?:是|算)|当年我|小时候我|那时候我
    """
)


# A level said outright elsewhere in the sentence wins over one read from a duration or a description:
# "ten years of Kubernetes … I help maintain a few operators" is expert, "三四年了，pandas 用得还行"
# intermediate, "I'm a hobbyist …, somewhere in the middle" intermediate. Denials come first ("not a
# beginner, not an expert either", "离精通还差得远", "不算新手也不算高手" are intermediate).
_OUTRIGHT: list[tuple[str, re.Pattern[str]]] = [
    (
        "intermediate",
        zh(
            r"""
            (?i:\b(?:no|not\s+(?:really\s+)?an?|far\s+from\s+an?|hardly\s+an?)\s+(?:expert|pro|guru|master|specialist)\b|
            \bnot\s+(?:a|really\s+a)\s+(?:beginner|novice|newbie)\b|\bno\s+longer\s+a\s+(?:beginner|novice)\b|
            \bsomewhere\s+in\s+(?:the\s+)?(?:middle|between)\b|\bin\s+the\s+middle\b|\bmiddle\s+of\s+the\s+road\b|
            \bneither\s+a\s+beginner\b|\bintermediate\b|\bmid-level\b)|
            不算新手也不算高手|既不是新手也不是高手|不算(?:新手|小白|菜鸟|高手|专家|精通)|不是(?:新手|小白)了?|算不上(?:高手|专家|精通|大神)|
            谈不上(?:精通|专家|高手)|离(?:精通|专家|高手)还?(?:差|远)|中等|中级|一般般|马马虎虎|(?<![不])还行|还可以|凑合|半吊子|
            还算熟(?!练)|算是?熟(?!练)|[^，,。]{1,6}就不行了
            """
        ),
    ),
    (
        "expert",
        zh(
            r"""
            (?i:(?<!no\s)(?<!not\s)(?<!an\s)\bexpert\b|\ban\s+expert\b|\bmaintain(?:s|er|ers|ing)?\b|\bcore\s+contributor\b|
            \bcommitter\b|\bcontribut(?:e|ed|es|ing|or)\s+to\b|\b(?:standards?|steering)\s+committee\b|\bprofessor\b)|
            (?<!不算)(?<!算不上)(?<!谈不上)(?<!离)(?:专家|精通|权威|维护者|核心贡献者|教授)
            """
        ),
    ),
    ("beginner", zh(r"(?i:\b(?:beginner|novice|newbie|noob)\b)|(?<!不算)(?<!不是)新手|小白|菜鸟|零基础|一窍不通")),
]
_CONTRAST = zh(r"(?i:\b(?:but|though|although|while|whereas)\b)|但是|但|不过|可是|却")


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


# every pattern (and the cue fallback) is about the user: without a word for them there is nothing to read
_ABOUT_ME = zh(
    r"""
    (?i:\b(?:I|I'm|I've|I'd|my|me|myself|we|we're|we've|our|us|treat|assume|talk)\b|\bhere\b|
    (?:years?|decades?|months?)\s+of\b)|我|咱
    """
)


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
