"""Expertise: `profile.expertise` = beginner | intermediate | advanced | expert, or
`profile.expertise.<domain slug>` when a domain is named, so each domain is its own slot.

Besides a level said outright ("I'm a beginner in Python", "我是前端新手"), the level is read from
how the user describes their experience: never used / zero experience / 零基础 -> beginner;
decent at / know my way around / 会一点 -> intermediate; professional / very good at / 很熟 ->
advanced; teach it / maintain it / 贡献者 -> expert; and "N years of X" (under a year beginner, 1-3
intermediate, more advanced)."""

from __future__ import annotations

import re

from ..models import Kind
from .family import Family, Hit
from .text import Getter, Pattern, clean, rx, slugify, to_int, zh

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
    r"now|these\ days|by\ now|already)\b)"
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
        if re.match(r"(?i)(?:it|this|that|them|these|those|here|there|me|you|him|her|us)\b", raw.strip()):
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
    n = 1 if raw in ("a", "an", "one", "一") else to_int(raw)
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
    return (level, _clean_domain(m.group("d"))) if level else None


def _duration_zh(m: re.Match[str]) -> tuple[str, str | None] | None:
    level = _by_duration(m.group("n"), m.group("u"))
    return (level, _clean_domain(m.group("d"))) if level else None


_NUM_EN = (
    r"(?P<n>\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|a\ couple\ of|a\ fe"
    r"w)"
)
_NUM_ZH = r"(?P<n>\d+|[一二两三四五六七八九十]+|半)"
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
            _LEVELS[m.group(2).casefold()],
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
            r"evel)\b))\s+"
            r"(?:skills?\s+|knowledge\s+|level\s+)?(?:is|are)\s+(?:pretty\s+|very\s+|quite\s+|"
            r"fairly\s+|still\s+|really\s+|super\s+|a\s+bit\s+|kind\s+of\s+)?(?P<l>basic|rusty|limited|weak|elementary|"
            r"non-?existent|decent|okay|ok|solid|good|strong|excellent|fluent|advanced|intermediate|beginner-level"
            r"|native)\b"
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
        lambda m: _with_domain(_phrase_level(m.group(1) or m.group(2)), m.group(3)),
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
            r"\bI(?:'ve|\s+have)\s+been\s+(?:an?\s+)?(?P<d>[\w+#.\-]+(?:\s+[\w+#.\-]+)?\s+"
            + _ROLE
            + r")"
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
            + r"(?=$|[,.;!?]|\s+(?:at|for|in|and|but|so|to)\b)"
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
            入门者|专家|高手|老手|大牛|行家|大神|外行|门外汉)
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
            r"(新手|初学者|小白|菜鸟|新人|专家|高手|老手|大牛|行家|外行|门外汉)"
        ),
        _expertise(2, 1),
    ),
    # "我是有经验的UI设计师"
    Pattern(
        zh(
            r"我们?(?:都)?(?:是|算是)(?:一个|一名|个)?\s*(有经验|经验丰富|有多年经验|有丰富经验|没什么经验|没经验|"
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
_SELF_EN = rx(r"\b(?:I|I'm|I've|I'd|my|me|myself|we|we're|we've|our\s+team|my\s+team)\b")
_CUES_EN: list[tuple[str, re.Pattern[str]]] = [
    (
        "intermediate",
        rx(
            r"""
            \b(?:(?:I'm|I\s+am)\s+)?(?:no|not\s+an?|not\s+really\s+an?|far\s+from\s+an?)\s+(?:pro|expert|guru|master|
            specialist)\b|
            \bget\s+(?:around|by)\b|\bcomfortable\s+with\s+the\s+basics\b|\bknow\s+(?:the\s+|my\s+)?basics\b|
            \bnothing\s+fancy\b|\bsome\s+(?:experience|background|familiarity)\b|\bfamiliar\s+with\b|\bmoderately\b|
            \bhalf-decent\b|\bmid-level\b|\bintermediate\b|\bdecent\b|\bhandle\s+the\s+basics\b
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
            \bwrote\s+(?:the|a)\s+book\b|\bauthor\s+of\b|\bworld[- ]class\b|\b(?:an?\s+)?authority\s+on\b
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
            \bnew\s+to\b|\bbeginners?\b|\bhobbyist\b|\b(?:pretty\s+|very\s+|still\s+|a\s+bit\s+|really\s+)green\b|
            \bamateur\b|\bweekend\s+warrior\b|\bnovice\b|\bnewbie\b|\bnoob\b|
            \bdabbled\b|\bdabbling\b|
            \bnever\s+(?:really\s+|actually\s+)?(?:used(?!\s+to\b)|built|done|tried|touched|worked|learned|studied|
            written|coded)\b|
            \bjust\s+(?:started|starting|began|getting\s+started)\b|(?:\bnot|
            n't)\s+(?:really\s+)?my\s+(?:strong\s+suit|forte|thing|area)\b|
            \b(?:zero|no|little|limited|minimal)\s+(?:real\s+)?(?:experience|background|knowledge)\b|\bclueless\b|
            \b(?:pretty|very|super|really)\s+basic\b|\brusty\b|\bweak\s+(?:at|in|with)\b|\bstill\s+learning\b|
            \bbarely\s+know\b|\bdon'?t\s+know\s+(?:much|anything)\s+about\b|\blost\s+when\s+it\s+comes\s+to\b
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
    rx(r"\b(?:in|with|at|on)\s+" + _DOMAIN_EN + _DOMAIN_END),
]
_CAPITALIZED = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][\w+#.]*(?:\s+[A-Z][\w+#.]*)?)")
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
    return None


# an aspiration is a goal, not a level ("my ambition is to get a PhD")
_ASPIRATION = zh(
    r"""
    (?i:\b(?:want|wants|wanted|hope|hoping|plan|planning|goal|ambition|dream|aim|aiming|would\s+like|'d\s+like|wish|
    going\s+to|will|intend|someday|one\s+day)\b)|想|希望|打算|计划|规划|目标|梦想|愿望|心愿|准备|将来|以后|争取
    """
)


def _expertise_cue_en(m: re.Match[str]) -> tuple[str, str | None] | None:
    text = m.string
    if not _SELF_EN.search(text) or re.search(r"[\u4e00-\u9fff]", text) or _ASPIRATION.search(text):
        return None
    for level, cue in _CUES_EN:
        if cue.search(text):
            domain = _domain_en(text)
            if domain is None:
                return None  # "I'm no expert", "I taught my dog a trick": too vague without the thing it is about
            return level, domain
    return None


_SELF_ZH = zh(r"我|咱")
_CUES_ZH: list[tuple[str, re.Pattern[str]]] = [
    (
        "intermediate",
        zh(
            r"中级|中等|能独立(?:开发|完成|做)|不算精通|算不上精通|谈不上精通|不敢说精通|没到精通|还算会用|会用|还"
            r"行|一般般|马马虎虎|还可以|够用|能应付|半吊子|中等水平|(?:简单|基础|基本"
            r"|日常)的?[^，,。]{0,6}没问题"
        ),
    ),
    (
        "expert",
        zh(
            r"精通|专家|大牛|大神|权威|内核开发者|核心开发者|核心贡献者|贡献者|维护者|committer|博士|出过书|讲师|教"
            r"授|教这个"
        ),
    ),
    (
        "advanced",
        zh(
            r"出身|老用户|老玩家|老司机|熟手|老手|资深|很熟|挺熟|熟练|十几年|二十年|多年|好多年|好些年|常年|科班|专"
            r"业的|[五六七八九十]+年|吃这碗饭|驾轻就熟|轻车熟路"
        ),
    ),
    (
        "beginner",
        zh(
            r"不太了解|不了解|了解不多|什么都不懂|啥都不懂|皮毛|略知一二|一知半解|门外汉|外行|小白|新手|菜鸟|入门|"
            r"刚接触|刚学|刚开始学|刚上手|没学过|没用过|没碰过|没接触过|不太会|不怎么会|一"
            r"点点|零基础|一窍不通|不太懂|不懂|不会"
        ),
    ),
]
_DOMAIN_SPOT_ZH = [
    zh(r"([A-Za-z][\w+#.\-]*(?:\s+[A-Za-z][\w+#.\-]*)?)"),
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


def _expertise_cue_zh(m: re.Match[str]) -> tuple[str, str | None] | None:
    text = m.string
    if not _SELF_ZH.search(text) or _ASPIRATION.search(text):
        return None
    for level, cue in _CUES_ZH:
        if not cue.search(text):
            continue
        for spot in _DOMAIN_SPOT_ZH:
            d = spot.search(text)
            if d:
                domain = _clean_domain(d.group(1))
                if domain and not re.search(r"我|你|他|她|这|那|什么|怎么|东西|问题|时候", domain):
                    return level, domain
        return None  # a level without the thing it is about: "我不会", "还行"
    return None


_EXPERTISE += [
    Pattern(rx(r"^.+$"), _expertise_cue_en, True),
    Pattern(zh(r"^.*[\u4e00-\u9fff].*$"), _expertise_cue_zh, True),
]


def _expertise_hit(value: tuple[str, str | None], match: re.Match[str]) -> Hit:
    level, domain = value
    attribute = "profile.expertise" + (f".{slugify(domain)}" if domain else "")
    return Hit("expertise", Kind.PREFERENCE, attribute, level, confidence=0.85)


EXPERTISE = Family("expertise", Kind.PREFERENCE, "profile.expertise", _EXPERTISE, build=_expertise_hit)
