"""Answer language: `preference.language` = "English" | "Chinese" | ..."""

from __future__ import annotations

import re

from ..models import Kind
from .family import Family
from .text import Getter, Pattern, rx, zh

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
_LANG_EN = r"""
               (simplified\ chinese|traditional\ chinese|english|chinese|mandarin|japanese|korean|
               french|german|spanish)
           """
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
    Pattern(
        rx(
            r"\b(?:answer|reply|respond|write|speak|talk|explain|communicate|chat|converse|text)\b"
            r"""
                (?:\s+(?:to\s+me|me|back|everything|all|always|only|please|from\ now\ on|
                going\ forward|this\ time))*\s+in\s+
            """ + _LANG_EN + r"\b" + _NOT_A_LANGUAGE
        ),
        _lang(1),
    ),
    Pattern(
        rx(
            r"""
                \b(?:use|switch(?:\s+back)?\s+to|stick\s+(?:to|with)|prefer|change\s+(?:it\s+)?to|
                go\s+with)\s+(?:only\s+)?
            """
            + _LANG_EN
            + r"\b"
            + _NOT_A_LANGUAGE
        ),
        _lang(1),
    ),
    Pattern(rx(r"(?:^|\b)(?:in\s+)?" + _LANG_EN + r"\s*,?\s*please\b"), _lang(1)),
    Pattern(
        rx(
            r"\bin\s+"
            + _LANG_EN
            + r"""
                                       \s+(?:from\ now\ on|going\ forward|only|by\ default|always|
                                       this\ time|for\ now)\b
                                   """
        ),
        _lang(1),
    ),
    Pattern(
        rx(r"\b(?:from\ now\ on|going\ forward|always|by\ default|this\ time)\s*,?\s+in\s+" + _LANG_EN + r"\b"),
        _lang(1),
    ),
    Pattern(
        zh(
            r"(?:用|使用|改用|换成|换用|改成|改为|切换(?:到|成)|以)\s*"
            + _LANG_ZH
            + r"\s*(?:来)?(?:回答|回复|答复|交流|沟通|对话|聊天?|解释|讲解|讲|说)?"
            + _ZH_END
        ),
        _lang_zh_use,
    ),
    Pattern(zh(r"(?:跟我|和我|对我|请|都|以后|今后|就)(?:说|讲)\s*" + _LANG_ZH + _ZH_END), _lang(1)),
    Pattern(zh(r"^(?:请|以后|今后)?(?:都)?" + _LANG_ZH + r"(?:回答|回复)"), _lang(1)),
]


LANGUAGE = Family("language", Kind.PREFERENCE, "preference.language", _LANGUAGE, temporal=True)
