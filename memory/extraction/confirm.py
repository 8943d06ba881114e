"""Collaboration rules: `rule.confirm_before` = the action to confirm first ("send to the client")."""

from __future__ import annotations

import re

from ..models import Kind
from .family import Family
from .text import Pattern, captured, clean, rx, zh

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
_OBJECT_PRONOUN = rx(r"^(\w+)\s+(?:it|them|this|that|anything|something|things|stuff|any\ of\ it)\b\s*")


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
    a = clean(raw)
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
    a = clean(raw)
    a = re.sub(r"^(?:以后|今后|每次|凡是|任何|所有|在|你|都|要)+", "", a)
    a = re.sub(r"(?:之|的)$", "", a)
    return a if len(a) >= 2 else None


_CONFIRM_EN = r"(?:review|confirm|approve|check|see|look\ at|okay|ok|sign\ off\ on|read|vet|proofread)"
_RULES = [
    Pattern(
        rx(
            r"""
            \b(?:don'?t|do\ not|
            never)\s+(.{2,60}?)\s+without\s+(?:my\s+(?:explicit\s+)?(?:approval|confirmation|
            permission|ok|okay|sign-off|go-ahead)|asking(?:\ me)?(?:\ first)?|
            checking\ with\ me(?:\ first)?|confirming\ with\ me|me\ confirming|me\ approving|
            my\ say-so)
            """
        ),
        captured(1, _action_en),
        True,
    ),
    Pattern(
        rx(
            r"""
                \b(?:let\ me|I(?:'d|\s+would)?\s+(?:want|like|need)\s+to|
                I\s+(?:must|should|get\ to)|always\ let\ me|ask\ me\ to|I\s+want\s+to)\s+
            """
            + _CONFIRM_EN
            + r"""
                  \s+(?:it|them|this|that|things|anything|everything|drafts?|the\s+\w+|
                  your\s+\w+)?\s*(?:first\s+)?
              """
            r"before\s+(?:you\s+|we\s+|anyone\s+|it\s+)?(.{2,80})"
        ),
        captured(1, _action_en),
    ),
    Pattern(
        rx(
            r"""
            \b(?:ask|check\ with|confirm\ with|run\ it\ by|
            get\s+(?:my\s+)?(?:approval|confirmation|ok|okay|
            sign-off)(?:\s+from\s+me)?)\s+(?:me\s+)?(?:first\s+)?(?:for\s+(?:my\s+)?(?:approval|
            confirmation|permission|ok|okay)\s+)?before\s+(?:you\s+)?(.{2,80})
            """
        ),
        captured(1, _action_en),
    ),
    Pattern(
        zh(
            r"""
            (?:在|每次|以后|今后|凡是)?(.{1,20}?)(?:之前|以前|前)\s*(?:一定|务必|必须|都|要|需要|得|
            请)*\s*(?:先)?\s*(?:让我|给我|跟我|和我|找我|问我|请我|经过我|经我|由我|
            等我)\s*(?:的)?\s*(?:确认|审核|审批|过目|看一下|看一眼|看看|看|批准|同意|检查|核对)
            """
        ),
        captured(1, _action_zh),
    ),
    Pattern(
        zh(
            r"""
            (?:未经|没有|没经过|没得到)我的?(?:确认|同意|允许|批准|审批)(?:之前|前)?[，,]?\s*(?:不要|
            别|不能|不得|不许|不可以)\s*(.{2,20})
            """
        ),
        captured(1, _action_zh),
        True,
    ),
    Pattern(
        zh(r"(?:不要|别|不能|不得)\s*(?:在)?未经我的?(?:确认|同意|允许|批准)(?:就)?\s*(.{2,20})"),
        captured(1, _action_zh),
        True,
    ),
]


CONFIRM_BEFORE = Family("confirm_before", Kind.RULE, "rule.confirm_before", _RULES, temporal=True)
