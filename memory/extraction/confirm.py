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
        "reschedule",
        "rebook",
        "reach out",
        "sign up",
        "subscribe",
        "unsubscribe",
        "renew",
        "hire",
        "fire",
        "offer",
        "quote",
        "bid",
        "apply",
        "enroll",
        "register",
        "uninstall",
        "upgrade",
        "downgrade",
        "touch",
        "cc",
        "agree",
        "tag",
        "mention",
        "announce",
        "return",
        "sell",
        "lend",
        "give",
        "donate",
        "venmo",
        "expense",
        "charge",
    }
)
_GOES_OUT = rx(
    r"""
    ^(?:it|anything|they|something|things|stuff|emails?|messages?|posts?|nothing|no\s+\w+|any\s+\w+)(?:'s|'re|
    \s+(?:goes|go|gets|get|is|are))\s+
    (?P<how>out|sent|sent\ out|published|posted|shipped|live|public|released|deployed)(?:\s+(?P<prep>to|
    on)\s+(?P<where>.+))?$
    """
)


_PARTICIPLES = {
    "published": "publish",
    "posted": "post",
    "shipped": "ship",
    "live": "publish",
    "public": "publish",
    "released": "release",
    "deployed": "deploy",
}


_NOUN_ACTIONS = {
    "payment": "pay",
    "payments": "pay",
    "purchase": "purchase",
    "purchases": "purchase",
    "booking": "book",
    "bookings": "book",
    "deployment": "deploy",
    "deployments": "deploy",
    "release": "release",
    "releases": "release",
    "submission": "submit",
    "publication": "publish",
    "transfer": "transfer",
    "transfers": "transfer",
    "deletion": "delete",
    "cancellation": "cancel",
    "change": "change",
    "changes": "change",
    "order": "order",
    "orders": "order",
    "refund": "refund",
    "refunds": "refund",
    "email": "email",
    "emails": "email",
    "post": "post",
    "posts": "post",
    "announcement": "announce",
    "announcements": "announce",
    "merge": "merge",
    "merges": "merge",
    "migration": "migrate",
    "migrations": "migrate",
}


def _action_en(raw: str) -> str | None:
    a = clean(raw)
    noun = re.match(r"(?i)^(?:any|all|every|each|the|a|an)\s+(\w+)\b(.*)$", a)
    if noun and noun.group(1).casefold() in _NOUN_ACTIONS:  # "prior to any payment"
        return (_NOUN_ACTIONS[noun.group(1).casefold()] + noun.group(2)).strip()
    out = _GOES_OUT.match(a)
    if out:  # "before it goes out to the mailing list", "before anything is published"
        verb = _PARTICIPLES.get(out.group("how").casefold(), "send")
        tail = (
            f" {out.group('prep')} {out.group('where')}" if out.group("where") else (" out" if verb == "send" else "")
        )
        return verb + tail
    a = re.sub(r"^(?:you|we|anyone|somebody|someone)\s+", "", a, flags=re.I)
    words = a.split()
    if words and words[0].casefold() in _GERUNDS:
        words[0] = _GERUNDS[words[0].casefold()]
    elif words and words[0].casefold().endswith("ing") and len(words[0]) > 5:
        w = words[0].casefold()[:-3]  # "modifying" -> "modify", "shipping" -> "ship", "changing" -> "change"
        for base in (w, w + "e", w[:-1] if len(w) > 2 and w[-1] == w[-2] else w):
            if base in _ACTIONS_EN:
                words[0] = base
                break
    a = " ".join(words)
    a = _OBJECT_PRONOUN.sub(lambda m: m.group(1) + " ", a).strip()
    head = a.split()[0].casefold() if a else ""
    two = " ".join(a.split()[:2]).casefold()
    if head.startswith("re") and head[2:] in _ACTIONS_EN:
        return a  # "reschedule", "repost", "resend"
    if not a or (head not in _ACTIONS_EN and two not in _ACTIONS_EN):
        return None  # "let me check before you go": not an action that needs a confirmation
    return a


def _action_zh(raw: str) -> str | None:
    a = clean(raw)
    a = re.sub(r"^.*[，,:：;；]", "", a)
    a = re.sub(r"^(?:以后|今后|每次|凡是|任何|所有|在|你|都|要|帮我|替我|但凡)+", "", a)
    a = re.sub(r"(?:之|的)$", "", a)
    return a if len(a) >= 2 else None


_CONFIRM_EN = r"(?:review|confirm|approve|check|see|look\ at|okay|ok|sign\ off\ on|read|vet|proofread)"
_ME_OK_EN = r"""
    (?:my\s+(?:explicit\s+|written\s+|express\s+)?(?:approval|confirmation|permission|ok|okay|sign-off|
    go-ahead|green\ light|say-so|consent|blessing)|asking(?:\s+me)?|checking\s+(?:with|in\s+with)\s+me|
    confirming\s+with\s+me|me\s+(?:confirming|approving|seeing\s+it|signing\s+off|saying\s+so|knowing)|
    running\s+(?:it|them|that|this|things)\s+(?:by|past)\s+me|telling\s+me|consulting\s+me|
    looping\s+me\s+in|talking\s+to\s+me|a\s+heads[- ]up|my\ say-so)(?:\s+first)?
"""
_ASK_EN = r"""
    (?:(?:always\s+|please\s+|first\s+|just\s+)*(?:confirm|check|check\s+in|double-check|clear\s+it|
    clear\ things)\s+with\s+me|(?:always\s+|please\s+)*ask\s+me(?:\s+first)?|
    (?:always\s+|please\s+)*let\s+me\s+(?:review|see|check|take\s+a\s+look|have\s+a\s+look|look|approve|
    know|okay|ok|sign\s+off|confirm|vet|read)(?:\s+(?:it|them|that|this|things|first))*|
    (?:always\s+|please\s+)*run\s+(?:it|them|that|this|things)\s+(?:by|past)\s+me|
    get\s+my\s+(?:ok|okay|approval|sign-off|go-ahead|confirmation)|ping\s+me|loop\s+me\s+in|
    show\s+me(?:\s+(?:it|them|first))*|check\s+in\s+with\s+me)
"""
_RULES = [
    Pattern(
        rx(
            r"""
            (?:\b(?:don'?t|do\ not|never|you\ shouldn'?t|you\ should\ never)|^no)\s+(.{2,60}?)\s+without\s+
            """
            + _ME_OK_EN
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
            r"before\s+(?:you\s+|we\s+|anyone\s+)?(.{2,80})"
        ),
        captured(1, _action_en),
    ),
    Pattern(
        rx(
            r"""
            \b(?:ask|check\ with|check\ in\ with|confirm\ with|run\ it\ by|run\ it\ past|run\ (?:them|that|
            this)\ (?:by|past)|
            get\s+(?:my\s+)?(?:approval|confirmation|ok|okay|
            sign-off)(?:\s+from\s+me)?)\s+(?:me\s+)?(?:first\s+)?(?:(?:for\s+)?(?:my\s+)?(?:approval|
            confirmation|permission|ok|okay)\s+)?before\s+(?:you\s+)?(.{2,80})
            """
        ),
        captured(1, _action_en),
    ),
    # inverted: "Before you book anything, confirm with me", "Before you send invoices, let me take a look"
    Pattern(
        rx(r"\bbefore\s+(?:you\s+|we\s+|anyone\s+)?(.{2,60}?)\s*,\s*(?:\w+\s+){0,2}?" + _ASK_EN + r"\b"),
        captured(1, _action_en),
    ),
    # "Run any changes to the budget spreadsheet past me first"
    Pattern(
        rx(r"^(?:please\s+|always\s+)?run\s+(?!it\b|them\b|that\b|this\b)(.{2,60}?)\s+(?:by|past)\s+me\b"),
        captured(1, lambda raw: re.sub(r"^(?:any|all|every|each)\s+", "", clean(raw), flags=re.I) or None),
    ),
    Pattern(
        zh(
            r"""
            (?:在|每次|以后|今后|凡是)?([^，,:：。；;！!]{1,20}?)(?:之前|以前|前)\s*[，,]?\s*(?:一定|务必|必须|都|要|需要|得|请|
            一律|记得|千万|最好|麻烦)*\s*(?:先)?\s*(?:一定|务必|必须|都|要|需要|得|请)*\s*(?:
            (?:让我|给我|跟我|和我|找我|请我|经过我|经我|由我|等我)\s*(?:的)?\s*(?:先)?\s*(?:确认|审核|审批|审|过目|
            看一下|看一眼|看看|看|批准|同意|检查|核对|点头|签字|拍板|过一下|过一遍)|
            问(?:一下|问)?我|问我(?:一下|一声)?|(?:跟|和)我(?:说|讲)(?:一声|一下|下)?|告诉我(?:一声|一下)?|通知我|知会我|
            征得我(?:的)?(?:同意|许可|允许)|经过我(?:的)?(?:同意|允许)|请示我|
            把[^，,。]{1,10}?(?:给我|让我|发我)(?:看看|看一下|看|过目|确认|审一下|审)|
            确认(?:一下|下)?(?=$|[。！!吧啊哈]))
            """
        ),
        captured(1, _action_zh),
    ),
    Pattern(
        zh(
            r"""
            (?:未经|没有|没经过|没得到|不经过|没)我的?(?:确认|同意|允许|批准|审批|点头|签字|首肯|许可|过目)(?:的话)?(?:之前|前)?[，,]?\s*
            (?:不要|别|不能|不得|不许|不可以|不准|禁止)\s*([^，,。]{2,20})
            """
        ),
        captured(1, _action_zh),
        True,
    ),
    Pattern(
        zh(r"(?:不要|别|不能|不得)\s*(?:在)?未经我的?(?:确认|同意|允许|批准)(?:就)?\s*([^，,。]{2,20})"),
        captured(1, _action_zh),
        True,
    ),
]


# --- cue fallback: an approval by the user + a "before / unless / without" link, in any order ----------
_APPROVER_EN = rx(
    r"""
    \b(?:(?:check|checking|confirm|confirming|clear|clearing|double-check)\s+(?:it\s+|things\s+|in\s+)?with\s+me|
    ask(?:ing)?\s+me|(?:my|your)\s+(?:explicit\s+)?(?:ok|okay|approval|sign-off|go-ahead|permission|consent|say-so|
    green\ light|
    confirmation|blessing)|I(?:'ve|\s+have)?\s+(?:approved|signed\s+off|okayed|ok'd|reviewed|seen|confirmed|agreed)|
    I\s+(?:sign\s+off|approve|okay|confirm|review|agree|say\s+so)|let\s+me\s+(?:review|see|check|approve|look|know|
    confirm|
    take\s+a\s+look|have\s+a\s+look)|run\s+(?:it|them|that|things)\s+(?:by|past)\s+me|loop\s+me\s+in|ping\s+me|
    (?:get|have)\s+my\s+(?:ok|okay|approval|sign-off|go-ahead)|
    (?:a|my)\s+(?:thumbs[- ]up|nod|go-ahead|green\ light|ok|okay|sign-off|approval)\s+from\s+me)\b
    """
)
_LINK_EN = rx(r"\b(?:before|unless|until|till|without|prior\s+to|whenever|every\s+time|any\s+time)\b")
_NO_RULE_EN = rx(
    r"\b(?:don'?t|do\s+not|doesn'?t|no)\s+need\s+to|\bno\s+need\b|\bneedn'?t\b|\bdon'?t\s+have\s+to\b|\bnot\s+nece"
    r"ssary\b"
)
_ACTION_SPOTS_EN = [
    rx(
        r"\b(?:before|prior\s+to)\s+(?:you\s+|we\s+|anyone\s+)?(?:(?:are|'re)\s+(?:about|going)\s+to\s+)?(.{2,60}?"
        r")(?=\s*[,;]|$|\s+(?:please|always)\b)"
    ),
    rx(
        r"\b(?:whenever|every\s+time|any\s+time)\s+(?:you|we)(?:'re|\s+are)?\s+(?:about\s+to\s+|going\s+to\s+)?(.{"
        r"2,60}?)(?=\s*[,;]|$)"
    ),
    rx(r"^(?:please\s+)?(?:don'?t|do\s+not|never)\s+(.{2,60}?)\s+(?:unless|until|till|without)\b"),
    rx(r"^(.{2,60}?)\s+(?:unless|until|till)\b"),
]


def _confirm_cue_en(m: re.Match[str]) -> str | None:
    text = m.string
    if not (_APPROVER_EN.search(text) and _LINK_EN.search(text)) or _NO_RULE_EN.search(text):
        return None
    for spot in _ACTION_SPOTS_EN:
        a = spot.search(text)
        if not a:
            continue
        raw = re.sub(r"^(?:nothing|no\s+(?=\w+\s+(?:goes|go|gets|is)))", "it ", a.group(1).strip(), flags=re.I)
        action = _action_en(raw)
        if action:
            return action
    return None


_APPROVER_ZH = zh(
    r"""
    问(?:一下|问)?我|问我|让我(?:先)?(?:看|确认|过目|审|批|同意|知道|检查|核对)|给我(?:先)?(?:看|过目|确认|审)|经过我|经我|
    我(?:的|不)?(?:同意|点头|确认|批准|允许|首肯|签字|拍板|过目)|我(?:要|得|必须|需要)(?:先)?(?:看|审|过目|确认|检查|批)|(?:跟|和|找)我(?:确认|商量|说|报备)|请示我|征得我|
    告诉我|通知我|知会我|(?:跟|和|给|向)我打(?:个|声)?招呼|(?:跟|和|给|向)我(?:吱|说|讲)(?:一)?声|向我报备
    """
)
_LINK_ZH = zh(
    r"前|之前|以前|先|才能|才可以|才行|再|不要|别|不能|不许|不准|凡是|都要|都得|都先|一律|的话|必须|务必|一定"
)
_NO_RULE_ZH = zh(r"(?:不用|不必|无需|不需要|用不着)(?:先)?(?:问我|让我|经过我|我同意|我确认|跟我确认|给我看)")
_ACTION_SPOTS_ZH = [
    zh(
        r"(?:^|[，,])\s*(?:凡是|所有|任何|每次|但凡)(?:要)?([^，,。；;]{2,20}?)(?:的事|的东西|的时候|的操作|的内容"
        r")?(?:都|一律|之前|前|先|要|必须|得|，|,)"
    ),
    zh(
        r"(?:^|[，,])\s*(?:要|把|在)?([^，,。；;]{2,20}?)(?:的事|的东西|的内容|的操作)?(?:之前|以前|前|都要|都得|都"
        r"先|一定|必须|务必)"
    ),
    zh(r"(?:的话|之前|以前|前|[，,])\s*(?:千万|一定|请)?(?:别|不要|不能|不许|不准|不可以)\s*([^，,。；;]{2,20})"),
]


def _confirm_cue_zh(m: re.Match[str]) -> str | None:
    text = m.string
    if not (_APPROVER_ZH.search(text) and _LINK_ZH.search(text)) or _NO_RULE_ZH.search(text):
        return None
    for spot in _ACTION_SPOTS_ZH:
        a = spot.search(text)
        if a:
            action = _action_zh(re.sub(r"(?:的事|的东西|的内容|的操作)$", "", a.group(1)))
            if action and not _APPROVER_ZH.search(action):
                return action
    return None


# each cue needs the user's approval named (the cue reads nothing without it): the gate says so up front
_RULES += [
    Pattern(rx(r"^.+$"), _confirm_cue_en, True, _APPROVER_EN),
    Pattern(zh(r"^.*[\u4e00-\u9fff].*$"), _confirm_cue_zh, True, _APPROVER_ZH),
]


CONFIRM_BEFORE = Family("confirm_before", Kind.RULE, "rule.confirm_before", _RULES, temporal=True)
