"""Text helpers shared by the rule families: pattern scanning with negation, cleaning values,
numbers, sentences, and the time windows of event time (UTC)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from . import prefilter

# Traditional characters -> simplified, one for one (so spans line up): the grammar is written in
# simplified characters, and a traditional sentence ("我決定用React", "以後都用繁體中文") reads the same.
_TRADITIONAL = (
    "並乾亞來係倆個們倫側偽備傢傾僅僞價儘優儲兒內兩冇冊別刪則剋剛創劃劇勁動務匯區協卻厲參員問喫單嗎嘗噹嚐嚮囉囌國園圖團執堅報"
    "場塊墊壓壞夠夢夥奧奮妳媽學寜實寧審寫將專對導層屬島崗師帶幫幹幾庫廁廈廚廢廣廳張強彆彈彎彙後從復徵徹悶愛慣慮慶憑憶應懞戀戲"
    "戶拋捨捲換摺撲擁擇擔據擱擴擺攝攢數斷於時晉暫曆書會東條棄棧業極榖構樂樓標樣機檔檢檯權歐歡歲歷氣決沒況淩減測湊準溝溫漢潔濛"
    "濟濱瀋為烏無煉煙煩燒營爭爲爺爾狀獨獲獻現環產産畢畫當發盡監盤瞭矇碩確碼磯礎禮穀穫竅競節簡簽籌籤粵糰糾約納紐純級紮細紹終組"
    "結絕絡給統絲經綫維網緊線編練緻總繞繪繫繼續纍纔羅義習聞聯聲職聽腳臘臟臨臺舉舊莊華萬薦薩藍藝蘇蘋蘭處虛號蠻術衝衹裏補裡製複"
    "襬襯見規視親覺觀觸訂計討訓記設許訴診評詞試話該詳誌認語誤說誰課調談請論謀講謝證識譜譯議護讀變讓讚豐負財貢貨責貴買費貼賅資"
    "賓賣質賺購贊趕車軟較輕輩輪輯輸轉辦辯農迴這連週進遊運過達遠適遲遷選還邊邏郵鄉鄭鄰醫釋針銀銷鋪鋼錄錢錯錶鍋鍵鍾鐘鐵鑒鑽長門"
    "開閑閒間閤闆關陣陽隊階際隻雙雜離難電鞦韆韓頂項順須預頓領頭頻題願顧風颱飛飪飯養館馬駐駕駛驗驟髒體髮鬆鬍鬚鬥魚魯鳥麥麯麵麼"
    "麽點鼕齊齡齣"
)
_SIMPLIFIED = (
    "并干亚来系俩个们伦侧伪备家倾仅伪价尽优储儿内两没册别删则克刚创划剧劲动务汇区协却厉参员问吃单吗尝当尝向啰苏国园图团执坚报"
    "场块垫压坏够梦伙奥奋你妈学宁实宁审写将专对导层属岛岗师带帮干几库厕厦厨废广厅张强别弹弯汇后从复征彻闷爱惯虑庆凭忆应蒙恋戏"
    "户抛舍卷换折扑拥择担据搁扩摆摄攒数断于时晋暂历书会东条弃栈业极谷构乐楼标样机档检台权欧欢岁历气决没况凌减测凑准沟温汉洁蒙"
    "济滨沈为乌无炼烟烦烧营争为爷尔状独获献现环产产毕画当发尽监盘了蒙硕确码矶础礼谷获窍竞节简签筹签粤团纠约纳纽纯级扎细绍终组"
    "结绝络给统丝经线维网紧线编练致总绕绘系继续累才罗义习闻联声职听脚腊脏临台举旧庄华万荐萨蓝艺苏苹兰处虚号蛮术冲只里补里制复"
    "摆衬见规视亲觉观触订计讨训记设许诉诊评词试话该详志认语误说谁课调谈请论谋讲谢证识谱译议护读变让赞丰负财贡货责贵买费贴赅资"
    "宾卖质赚购赞赶车软较轻辈轮辑输转办辩农回这连周进游运过达远适迟迁选还边逻邮乡郑邻医释针银销铺钢录钱错表锅键钟钟铁鉴钻长门"
    "开闲闲间合板关阵阳队阶际只双杂离难电秋千韩顶项顺须预顿领头频题愿顾风台飞饪饭养馆马驻驾驶验骤脏体发松胡须斗鱼鲁鸟麦曲面么"
    "么点冬齐龄出"
)
_T2S = str.maketrans(_TRADITIONAL, _SIMPLIFIED)
_ANY_TRADITIONAL = re.compile(f"[{_TRADITIONAL}]")


def to_simplified(text: str) -> str:
    """The text with traditional characters in their simplified form, character for character."""
    # (most texts have none: finding that out is cheaper than translating them character by character)
    if text.isascii() or _ANY_TRADITIONAL.search(text) is None:
        return text
    return text.translate(_T2S)


def alternation(entries: Sequence[str]) -> str:
    """Literal phrases as one regex alternation shaped as a tree of their characters (a space
    matches any run of whitespace): the engine tries each position against a few first characters,
    not against every phrase. At a position it finds the longest phrase the rest of the pattern
    allows, as a longest-first list of alternatives does."""
    root: dict[str, Any] = {}
    for entry in entries:
        node = root
        for ch in entry:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict[str, Any]) -> str:
        branches = [(r"\s+" if ch == " " else re.escape(ch)) + emit(node[ch]) for ch in sorted(node) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        if "" in node:  # a phrase ends here, a longer one may go on
            return f"(?:{body})?"
        return body

    return emit(root) if entries else "(?!)"


def rx(pattern: str) -> re.Pattern[str]:
    """A case-insensitive pattern, written in verbose mode: layout and comments are free, a literal
    space is `\\ ` and a literal `#` is `\\#`."""
    return re.compile(pattern, re.VERBOSE | re.IGNORECASE)


def zh(pattern: str) -> re.Pattern[str]:
    """A case-sensitive pattern (Chinese phrasings; `(?i:...)` marks an English part), verbose mode."""
    return re.compile(pattern, re.VERBOSE)


_CLAUSE_BREAK = rx(
    r"[,，、:：()（）]|\s[-–—]\s|\bbut\b|\band\b|\binstead\b|\bwhile\b|但是|可是|而是|不过|而且|并且|同时"
)
_NEG_EN = rx(
    r"""
    \b(?:not|never|no|no\ longer|don'?t|do\ not|doesn'?t|does\ not|didn'?t|won'?t|isn'?t|aren'?t|
    wasn'?t|can'?t|cannot|needn'?t|stop|neither|nor)\b
    """
)
_NEG_ZH = zh(
    r"不(?!管|论|对|错|过|仅|但|久|少|同|断|怕)|别(?!人|的|怕)|没有(?!多久|关系|问题)|没(?!多久|关系|问题|事)|无需"
    r"|甭|并非"
)


# "能不能 / 可不可以 / 要不要": a question form, not a negation
_A_NOT_A = re.compile(r"([\u4e00-\u9fff])不\1")


def _clause(text: str, start: int, end: int) -> str:
    a = 0
    for m in _CLAUSE_BREAK.finditer(text, 0, start):
        a = m.end()
    m2 = _CLAUSE_BREAK.search(text, end)
    b = m2.start() if m2 else len(text)
    return text[a:b]


def _negated(text: str, m: re.Match[str]) -> bool:
    clause = _A_NOT_A.sub("", _clause(text, m.start(), m.end()))
    return bool(_NEG_EN.search(clause) or _NEG_ZH.search(clause))


Value = Any
Getter = Callable[[re.Match[str]], Value]


@dataclass(frozen=True, slots=True)
class Pattern:
    rx: re.Pattern[str]
    value: Value | Getter
    neg_ok: bool = False  # the negation is part of the pattern's meaning ("don't be so verbose")
    # a cheap test first, for patterns that would otherwise be tried at every position (a Chinese topic
    # before its verb): the words the pattern cannot match without
    gate: re.Pattern[str] | None = None

    def __post_init__(self) -> None:
        # its words go into the prefilter's index (the gate's by alternative: it is only tested)
        prefilter.indexed(self.rx)
        prefilter.tested(self.gate)


def matched_by(patterns: Sequence[Pattern]) -> tuple[tuple[re.Pattern[str], ...], ...]:
    """Each pattern as the prefilter looks at it: with its gate (both must match), for a `Table` or
    a trigger that one of the patterns must match (`prefilter.one_of(*matched_by(patterns))`)."""
    return tuple((p.rx, p.gate) if p.gate is not None else (p.rx,) for p in patterns)


# the prefilter's table for each list of patterns scanned (the list kept, with what it held)
_TABLES: dict[int, tuple[list[Pattern], tuple[Pattern, ...], prefilter.Table]] = {}


def _table(patterns: list[Pattern]) -> prefilter.Table:
    entry = _TABLES.get(id(patterns))
    held = tuple(patterns)
    if entry is None or entry[1] != held:
        entry = _TABLES[id(patterns)] = (
            patterns,
            held,
            prefilter.Table.of_patterns(list(matched_by(held))),
        )
    return entry[2]


def tables(*pattern_lists: list[Pattern]) -> None:
    """Have the prefilter's tables of these lists made with its index (not on their first scan)."""
    for patterns in pattern_lists:
        prefilter.when_built(partial(_table, patterns))


def scan(patterns: list[Pattern], text: str) -> tuple[Value, re.Match[str]] | None:
    seen = prefilter.seen(text)
    for position in _table(patterns).may_match(seen):
        # (the others cannot match: a word every match needs is missing)
        p = patterns[position]
        if p.gate is not None and not prefilter.test(p.gate, text):
            continue
        for m in p.rx.finditer(text):
            if not p.neg_ok and _negated(text, m):
                continue
            v = p.value(m) if callable(p.value) else p.value
            if v:
                return v, m
    return None


_EN_FILLER = rx(
    r"""
    (?:\s*[,;:.!]*\s*\b(?:please|now|instead|then|first|as\ well|too|again|thanks|thank\ you|ok|okay|
    this\ week|today|tonight|this\ month|next\ week|tomorrow|for\ now|right\ now|from\ now\ on|
    going\ forward|for\ the\ time\ being|at\ the\ moment|for\ the\ rest\ of\ the\ (?:week|day)|
    from\ here\ on|by\ default|always|anymore|any\ more)\b\s*[,;:.!]*)+$
    """
)
_ZH_TAIL = zh(r"(?:[了吧啊呢哦呀嘛啦的哈]|就好|就行|即可|一下|一点|可以吗|好吗|谢谢|先|上)+$")
ZH_TIME = zh(
    r"""
    这周|本周|这个星期|这星期|本星期|这礼拜|这个礼拜|今天|今日|今晚|本月|这个月|下周|下个星期|下礼拜|
    明天|目前|眼下|当前|现阶段|暂时|这几天|以后|今后|从现在开始|从现在起
    """
)


def clean(value: str) -> str:
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


def slugify(text: str, limit: int = 40) -> str:
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
    "single": 1,
    "a single": 1,
}
_ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_ZH_UNITS = {"十": 10, "百": 100, "千": 1000}


def to_int(token: str) -> int | None:
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


_HARD_STOPS = "。！？；!?;\n"
TRAIL = "。！？；!?;.…"
_STOPS = re.compile("[" + re.escape(_HARD_STOPS + ".") + "]")


@dataclass(slots=True)  # (not frozen: mypyc builds a frozen dataclass through Python's own __init__, slowly)
class Sentence:
    start: int
    end: int
    text: str  # stripped, with its terminator
    question: bool


# a Chinese sentence that asks how, in its only clause or in its first (a space parts clauses too):
# "这个怎么弄", "Vue3里怎么让导航栏一直固定在页面顶部"; a question after a clause that states something
# leaves that clause to be read
_ASKS_HOW = re.compile(
    r"^[^，,、\s]*(?<!不)(?:怎么|如何|咋)[\u4e00-\u9fff]{0,2}\s*$"
    r"|^[^，,、\s]{0,12}(?<!不管)(?<!无论)(?<!不论)(?<!不)(?:怎么|如何|咋)(?!都|也|样都)"
)
# "怎么舒服怎么来" (whatever is most comfortable), "先告诉我该怎么做" (how, as what to answer): no question
_WHATEVER = re.compile(r"怎么[\u4e00-\u9fff]{1,3}怎么|(?:告诉我|说|讲|解释|教我|搞清楚|弄清楚)[该要]?(?:怎么|如何)")


def _asks(tail: str) -> bool:
    """A Chinese sentence without "？" that still asks: "…吗", "…么", how in its only or first clause
    (`_ASKS_HOW`); not "再说为什么" (explain why), nor `_WHATEVER`."""
    if _ASKS_HOW.search(tail) and not _WHATEVER.search(tail):
        return True
    if not re.search(r"[吗么]\s*$", tail):
        return False
    return not re.search(r"(?:说|讲|解释|告诉我|分析|写|搞清楚|弄清楚)\s*为什么\s*$", tail)


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
        tail = stripped.rstrip(TRAIL + " ")
        question = "?" in stripped[len(tail) :] or "？" in stripped[len(tail) :] or _asks(tail)
        out.append(Sentence(a + lead, a + lead + len(stripped), stripped, question))

    # (only a character that may end a sentence is looked at: the engine finds the next one)
    while (stop := _STOPS.search(text, i)) is not None:
        i = stop.start()
        ch = text[i]
        if (ch in _HARD_STOPS and not (ch == ";" and i + 1 < n and not text[i + 1].isspace())) or (
            ch == "." and (i + 1 == n or text[i + 1].isspace())
        ):
            j = i + 1
            while j < n and text[j] in TRAIL:
                j += 1
            emit(start, j)
            start = i = j
            continue
        i += 1
    emit(start, n)
    return out
