"""Answer language: `preference.language` = "English" | "Chinese" | ..."""

from __future__ import annotations

import re

from ..models import Kind
from .family import Family
from .text import Getter, Pattern, rx, zh

EN_NAMES = {
    "english": "English",
    "chinese": "Chinese",
    "mandarin": "Chinese",
    "simplified chinese": "Chinese",
    "traditional chinese": "Traditional Chinese",
    "cantonese": "Cantonese",
    "japanese": "Japanese",
    "korean": "Korean",
    "french": "French",
    "german": "German",
    "spanish": "Spanish",
    "portuguese": "Portuguese",
    "brazilian portuguese": "Portuguese",
    "italian": "Italian",
    "russian": "Russian",
    "dutch": "Dutch",
    "swedish": "Swedish",
    "norwegian": "Norwegian",
    "danish": "Danish",
    "finnish": "Finnish",
    "polish": "Polish",
    "czech": "Czech",
    "slovak": "Slovak",
    "hungarian": "Hungarian",
    "romanian": "Romanian",
    "bulgarian": "Bulgarian",
    "greek": "Greek",
    "turkish": "Turkish",
    "ukrainian": "Ukrainian",
    "arabic": "Arabic",
    "hebrew": "Hebrew",
    "persian": "Persian",
    "farsi": "Persian",
    "hindi": "Hindi",
    "urdu": "Urdu",
    "bengali": "Bengali",
    "tamil": "Tamil",
    "vietnamese": "Vietnamese",
    "thai": "Thai",
    "indonesian": "Indonesian",
    "malay": "Malay",
    "tagalog": "Tagalog",
    "filipino": "Filipino",
    "swahili": "Swahili",
}
ZH_NAMES = {
    "中文": "Chinese",
    "汉语": "Chinese",
    "普通话": "Chinese",
    "简体中文": "Chinese",
    "简体": "Chinese",
    "国语": "Chinese",
    "华语": "Chinese",
    "繁体中文": "Traditional Chinese",
    "繁体": "Traditional Chinese",
    "粤语": "Cantonese",
    "广东话": "Cantonese",
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
    "西班牙文": "Spanish",
    "西语": "Spanish",
    "葡萄牙语": "Portuguese",
    "葡萄牙文": "Portuguese",
    "葡语": "Portuguese",
    "意大利语": "Italian",
    "意大利文": "Italian",
    "意语": "Italian",
    "俄语": "Russian",
    "俄文": "Russian",
    "荷兰语": "Dutch",
    "瑞典语": "Swedish",
    "挪威语": "Norwegian",
    "丹麦语": "Danish",
    "芬兰语": "Finnish",
    "波兰语": "Polish",
    "捷克语": "Czech",
    "匈牙利语": "Hungarian",
    "罗马尼亚语": "Romanian",
    "希腊语": "Greek",
    "土耳其语": "Turkish",
    "乌克兰语": "Ukrainian",
    "阿拉伯语": "Arabic",
    "阿拉伯文": "Arabic",
    "希伯来语": "Hebrew",
    "波斯语": "Persian",
    "印地语": "Hindi",
    "越南语": "Vietnamese",
    "越南文": "Vietnamese",
    "泰语": "Thai",
    "泰文": "Thai",
    "印尼语": "Indonesian",
    "印度尼西亚语": "Indonesian",
    "马来语": "Malay",
}
_LANGS = {**EN_NAMES, **ZH_NAMES}


def _alternation(names: list[str], escape_space: bool) -> str:
    # longest first, so "simplified chinese" wins over "chinese"
    out = sorted(names, key=len, reverse=True)
    return "(" + "|".join(n.replace(" ", r"\ ") if escape_space else n for n in out) + ")"


_LANG_EN = _alternation(list(EN_NAMES), True)
_LANG_ZH = _alternation(list(ZH_NAMES), False)
_ZH_END = (
    r"(?=$|[，,。！!？?；;\s～~]|我|给我|吧|吗|呢|啊|哦|哈|啦|呀|嘛|就好|就行|就可以|好吗|可以吗|谢谢|以后|今后|了)"
)
_NOT_A_LANGUAGE = (
    r"(?!\s+(?:food|people|culture|history|names?|characters?|version|text|translation|class|classes|course|"
    r"exam|lessons?|restaurants?|friends?|speakers?|tea|cuisine|words?|movies?|books?|songs?|grammar|"
    r"accent|homework|test|teacher|tutor|dish|dishes|wine|cheese|beer|music|news|wife|husband|girlfriend|"
    r"boyfriend|colleagues?|coworkers?|neighbou?rs?|clients?|customers?|team|market|version|keyboard)\b)"
)


def _lang(group: int) -> Getter:
    def get(m: re.Match[str]) -> str | None:
        return _LANGS.get(m.group(group).casefold())

    return get


def _lang_zh_use(m: re.Match[str]) -> str | None:
    # "我会用英语" (I can use English) / "在学说英语" describe the user, not how to answer
    if re.search(r"我\S{0,3}?(?:会|能|在学|学习|学会|学)\s*$", m.string[: m.start()]):
        return None
    if m.string[m.end() : m.end() + 1] in ("了", "过") and re.search(r"[写说回发讲聊]$", m.group(0)):
        return None  # "我用英文写了一封邮件": what the user did, not how to answer
    return _LANGS.get(m.group(1))


_ANSWER_VERB = r"(?:answer|reply|respond|write|speak|talk|explain|communicate|chat|converse|text|message|type)"
_FILLER = r"""
    (?:\s+(?:to\s+me|with\s+me|me|back|everything|all|always|only|please|from\ now\ on|from\ here\ on|
    going\ forward|this\ time|by\ default|in\ general|exclusively|mainly|mostly))*
"""
_ANSWER_NOUN = r"""
    (?:answers?|responses?|replies|reply|messages?|output|conversations?|chats?|explanations?|
    communication|everything|all\ of\ (?:your|the)\ (?:answers|replies|responses))
"""
_LANGUAGE = [
    Pattern(rx(r"\b" + _ANSWER_VERB + r"\b" + _FILLER + r"\s+in\s+" + _LANG_EN + r"\b" + _NOT_A_LANGUAGE), _lang(1)),
    # "all your responses in French", "keep the conversation in French", "answers in English"
    Pattern(
        rx(r"\b" + _ANSWER_NOUN + r"(?:\s+[\w']+){0,3}?\s+in\s+" + _LANG_EN + r"\b" + _NOT_A_LANGUAGE),
        _lang(1),
    ),
    Pattern(
        rx(
            r"""
                \b(?:use|using|switch(?:\s+back)?\s+(?:(?:your|the|my)\s+(?:replies|answers|responses|
                language)\s+)?to|stick\s+(?:to|with)|prefer|change\s+(?:it\s+|that\s+|the\ language\s+)?to|
                go\s+with|default\s+to|set\s+(?:it\s+|the\ language\s+)?to|move\s+to|
                go\s+back\s+to)\s+(?:only\s+)?
            """
            + _LANG_EN
            + r"\b"
            + _NOT_A_LANGUAGE
        ),
        _lang(1),
    ),
    # "Portuguese would be great for your answers"
    Pattern(
        rx(
            r"\b"
            + _LANG_EN
            + r"\s+(?:would\s+be|is|works|suits\s+me)\s+(?:\w+\s+)?(?:great|best|better|preferred|ideal|easier|perfect|"
            r"nicer|good)\b(?:\s+for\s+(?:me|your\s+(?:answers|replies|responses)|the\s+(?:answers|replies)))?"
        ),
        _lang(1),
    ),
    # "I'd appreciate it if you wrote in Dutch"
    Pattern(
        rx(
            r"\byou\s+(?:wrote|answered|replied|responded|spoke|talked|communicated|switched\s+to|used)\b"
            + _FILLER
            + r"\s+(?:in\s+)?"
            + _LANG_EN
            + r"\b"
            + _NOT_A_LANGUAGE
        ),
        _lang(1),
    ),
    # "speak Japanese with me" (not "I speak Chinese": that says what the user speaks)
    Pattern(rx(r"\b(?:speak|talk|write|answer|reply|respond)\s+" + _LANG_EN + r"\s+(?:with|to)\s+me\b"), _lang(1)),
    Pattern(
        rx(r"(?:^|\b(?:please|always|now|on|forward)\s*,?\s+)(?:speak|talk|answer|reply)\s+" + _LANG_EN + r"\b"),
        _lang(1),
    ),
    Pattern(rx(r"(?:^|\b)(?:in\s+)?" + _LANG_EN + r"\s*,?\s*please\b"), _lang(1)),
    Pattern(rx(r"(?:^|,\s*|\b(?:on|forward|now)\s*,?\s*)(?:in\s+)?" + _LANG_EN + r"\s+only\b"), _lang(1)),
    Pattern(
        rx(
            r"\bin\s+"
            + _LANG_EN
            + r"""
                \s+(?:from\ now\ on|from\ here\ on|going\ forward|only|by\ default|always|
                this\ time|for\ now)\b
            """
        ),
        _lang(1),
    ),
    Pattern(
        rx(
            r"\b(?:from\ now\ on|from\ here\ on|going\ forward|always|by\ default|this\ time)\s*,?\s+in\s+"
            + _LANG_EN
            + r"\b"
        ),
        _lang(1),
    ),
    Pattern(
        rx(r"\b(?:my\s+)?(?:preferred\s+|answer\s+|reply\s+)?language\s*(?:is|:|=|should\s+be)\s*" + _LANG_EN + r"\b"),
        _lang(1),
    ),
    Pattern(
        zh(
            r"(?:用|使用|改用|换成|换用|改成|改为|切换(?:到|成)|以|设成|设为|设置(?:成|为)|定为|调成)\s*"
            + _LANG_ZH
            + r"\s*(?:来|和我|跟我|给我)?(?:回答|回复|答复|交流|沟通|对话|聊天?|解释|讲解|讲|说|写)?"
            + _ZH_END
        ),
        _lang_zh_use,
    ),
    Pattern(zh(r"(?:跟我|和我|对我|请|都|以后|今后|就)(?:说|讲)\s*" + _LANG_ZH + _ZH_END), _lang(1)),
    Pattern(zh(r"^(?:请|以后|今后)?(?:都)?" + _LANG_ZH + r"(?:回答|回复)"), _lang(1)),
]


# --- cue fallback: a language named next to how the user wants to be answered --------------------
_NAME_ANY = zh(r"(?i:\b" + _LANG_EN.replace("(", "(?:", 1) + r"\b)|" + _LANG_ZH.replace("(", "(?:", 1))
_ANSWER_CUE = zh(
    r"""
    (?i:\b(?:answers?|answering|repl(?:y|ies|ying)|respon(?:d|ds|ding|ses?)|writ(?:e|ing)|talk(?:ing)?|speak(?:ing)?|
    communicat(?:e|ing|ion)|chat(?:ting)?|conversations?|messages?|explain|explanations?|language|switch|stick|default|
    use|using|prefer|preferred)\b)|回答|回复|答复|交流|沟通|对话|聊|讲解|解释|语言|说话|用|改|换|切换
    """
)
# a language the user describes (speaks, learns), or a request to translate: not how to answer
_NOT_ANSWER = zh(
    r"""
    (?i:\btranslat\w*|\binto\s+|\b(?:learn|learning|study|studying|practi[cs]e|practi[cs]ing|teach|teaching)\b|
    \b(?:I|we)\s+(?:speak|know|read|understand|use)\s+\w+(?:\s+(?:at|with|and))?|\bhow\s+(?:do|to)\s+(?:I|you)\s+say\b|
    \bmeans?\b|\bword\s+for\b|\b(?:can|could|do|does|will)\s+you\s+(?:speak|understand|read|write|know|handle)\b|
    \bI(?:'m|\s+am)\s+(?:writing|reading|watching|studying|taking|teaching)\b)|翻译|翻成|译成|怎么说|是什么意思|我(?:会|能|在学|学|
    正在学)(?:说|讲)?|学(?:习)?(?=[\u4e00-\u9fff]{1,5}语|英文|中文)
    """
)
_LANG_NEG = zh(r"(?i:\b(?:not|don'?t|no|never|stop|instead\s+of|rather\s+than)\b)|别|不要|不用|不是|而不是|不再")


def _language_cue(m: re.Match[str]) -> str | None:
    text = m.string
    if not _ANSWER_CUE.search(text) or _NOT_ANSWER.search(text) or _WISH.search(text):
        return None
    names = [(n.start(), n.group(0)) for n in _NAME_ANY.finditer(text)]
    if not names:
        return None
    chosen = None
    framed = [
        name
        for start, name in names
        if _ANSWER_FRAME_BEFORE.search(text[:start]) or _ANSWER_FRAME_AFTER.match(text[start + len(name) :])
    ]
    for start, name in names:
        if framed and name not in framed:
            continue  # "你用中文回我就行，英文我看着累": the language to answer in, not the one complained about
        clause = re.split(r"[,，;；。]|\bbut\b|而是|但是", text[:start])[-1]
        if _LANG_NEG.search(clause):
            continue  # "not English", "别用英文"
        chosen = name
    if chosen is None:
        return None
    value = _LANGS.get(chosen.casefold()) or _LANGS.get(chosen)
    if value and _AS_ADJECTIVE.search(text[text.find(chosen) + len(chosen) :]):
        return None  # "a French essay", "英文邮件": a thing in that language, not how to answer
    return value


# "I'd love to speak fluent French one day": a goal, not the language to answer in
_WISH = zh(
    r"(?i:\b(?:I'?d\s+(?:love|like)\s+to|I\s+(?:want|hope|wish|plan|aim)\s+to|dream\s+of|goal|fluent|by\s+the\s+time)\b"
    r"(?!.*\b(?:to\s+me|with\s+me|answer|reply|respond)\b))|(?:想|希望|梦想|目标)[^，,。]{0,8}(?:说一口|流利|学会|学好)"
)
_ANSWER_FRAME_BEFORE = zh(r"(?i:\b(?:in|using|use)\s+$)|(?:用|说|讲|改用|换成|切换到|切到)\s*$")
_ANSWER_FRAME_AFTER = zh(
    r"(?i:^\s+(?:please|only|from\s+now\s+on|going\s+forward)\b)|^\s*(?:回|回答|回复|答|说|讲|交流|沟通|写)"
)
_AS_ADJECTIVE = zh(
    r"""
    ^(?i:\s+(?:food|people|culture|class(?:es)?|course|friends?|speakers?|version|text|essay|article|paper|letter|email|
    document|translation|words?|phrases?|sentences?|names?|app|site|website|keyboard|subtitles?|movies?|films?|books?|
    songs?|music|news|teacher|tutor|exam|test|homework|grammar|accent|restaurant|cuisine|dish(?:es)?|wine|history))\b|
    ^(?:邮件|文章|书|电影|歌|名字|版本|字幕|网站|课|老师|单词|歌曲|菜|歌词|小说|论文|简历|报告|文件|考试|作业|语法)
    """
)


_LANGUAGE += [Pattern(zh(r"^.+$"), _language_cue, True, _ANSWER_CUE)]  # (the cue needs a word for the answers)


# every pattern names a language: a sentence without one stops here
LANGUAGE = Family("language", Kind.PREFERENCE, "preference.language", _LANGUAGE, temporal=True, trigger=_NAME_ANY)
