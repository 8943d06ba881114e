"""Answer language: `preference.language` = "English" | "Chinese" | ...

The patterns, the languages' names and word lists are in `memory/data/families/language.toml`;
here are the readers that turn a match into a language."""

from __future__ import annotations

import re

from .spec import Spec

SPEC = Spec("language")
EN_NAMES = SPEC.maps["languages_en"]
ZH_NAMES = SPEC.maps["languages_zh"]
_LANGS = {**EN_NAMES, **ZH_NAMES}
_NAME_ANY = SPEC.expressions["name_any"]
_ANSWER_CUE = SPEC.expressions["answer_cue"]
_NOT_ANSWER = SPEC.expressions["not_answer"]
_LANG_NEG = SPEC.expressions["negated"]
_WISH = SPEC.expressions["wish"]
_ANSWER_FRAME_BEFORE = SPEC.expressions["answer_frame_before"]
_ANSWER_FRAME_AFTER = SPEC.expressions["answer_frame_after"]
_AS_ADJECTIVE = SPEC.expressions["as_adjective"]
_USER_CAN_ZH = SPEC.expressions["user_can_zh"]
_VERB_OF_WRITING_ZH = SPEC.expressions["verb_of_writing_zh"]
_CLAUSE_BEFORE = re.compile(r"[,，;；。]|\bbut\b|而是|但是")


def _lang(m: re.Match[str], group: int) -> str | None:
    return _LANGS.get(m.group(group).casefold())


def _lang_zh_use(m: re.Match[str]) -> str | None:
    if _USER_CAN_ZH.search(m.string[: m.start()]):
        return None  # "我会用英语" (I can use English): what the user can do, not how to answer
    if m.string[m.end() : m.end() + 1] in ("了", "过") and _VERB_OF_WRITING_ZH.search(m.group(0)):
        return None  # "我用英文写了一封邮件": what the user did, not how to answer
    return _LANGS.get(m.group(1))


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
        clause = _CLAUSE_BEFORE.split(text[:start])[-1]
        if _LANG_NEG.search(clause):
            continue  # "not English", "别用英文"
        chosen = name
    if chosen is None:
        return None
    value = _LANGS.get(chosen.casefold()) or _LANGS.get(chosen)
    if value and _AS_ADJECTIVE.search(text[text.find(chosen) + len(chosen) :]):
        return None  # "a French essay", "英文邮件": a thing in that language, not how to answer
    return value


LANGUAGE = SPEC.family("language", {"lang": _lang, "lang_zh_use": _lang_zh_use, "language_cue": _language_cue})
