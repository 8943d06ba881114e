"""The secret detector's look at one text: where it holds a credential or a card number, and the
text with those redacted (`memory.secrets` is the detector's whole interface; this part is compiled
with mypyc, as it runs on every turn and every stored text).
"""

from __future__ import annotations

import re

# A token that looks like a credential rather than a word: it has a digit or a symbol in it.
_CREDENTIAL_TOKEN = r"(?=[^\s]*[0-9!@#$%^&*+=?~])[^\s，,。；;！？]{4,}"

# (kind, words that must be in the casefolded text for the pattern to be tried — None: always
# tried —, pattern). Checking the words first makes clean text cost one pass of `in` tests
# instead of every pattern's search.
_PATTERNS: list[tuple[str, tuple[str, ...] | None, re.Pattern[str]]] = [
    (
        "api_key",
        ("sk-", "sk_", "pk-", "pk_", "rk-", "rk_", "gh", "glpat-", "xox", "akia", "asia", "aiza"),
        re.compile(
            r"""
        (?<![A-Za-z0-9])
        (?: (?:sk|pk|rk)[-_](?:live|test|proj)?[-_A-Za-z0-9]{12,}   # sk-…, sk_live_…, pk_test_…
          | (?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}                # GitHub tokens
          | github_pat_[A-Za-z0-9_]{20,}
          | glpat-[-_A-Za-z0-9]{16,}                                # GitLab
          | xox[abpr]-[-A-Za-z0-9]{10,}                             # Slack
          | (?:AKIA|ASIA)[A-Z0-9]{16}                               # AWS access key id
          | AIza[-_A-Za-z0-9]{30,}                                  # Google API key
        )""",
            re.VERBOSE,
        ),
    ),
    (
        "aws_secret_key",
        None,
        re.compile(
            r"""
        (?<![A-Za-z0-9/+=])
        (?=[A-Za-z0-9/+]*[A-Z])(?=[A-Za-z0-9/+]*[a-z])(?=[A-Za-z0-9/+]*[0-9])
        [A-Za-z0-9/+]{40}
        (?![A-Za-z0-9/+=])""",
            re.VERBOSE,
        ),
    ),
    ("jwt", ("eyj",), re.compile(r"\beyJ[-_A-Za-z0-9]{5,}\.[-_A-Za-z0-9]{5,}\.[-_A-Za-z0-9]{5,}")),
    ("bearer_token", ("bearer",), re.compile(r"\bBearer\s+[-._~+/=A-Za-z0-9]{16,}")),
    ("private_key", ("private key",), re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")),
    (
        "connection_string",
        ("://",),
        re.compile(
            r"""
        \b[A-Za-z][A-Za-z0-9+.\-]{1,20}://     # scheme
        [^\s:/@]+ : [^\s@/]+ @                 # user:password@
        """,
            re.VERBOSE,
        ),
    ),
    (
        "password",
        ("pass", "pwd", "pw"),
        re.compile(
            r"""
        (?i)(?<![a-z])
        (?:password|passwd|passcode|passphrase|pwd|pw|pass)
        ["']? \s* (?:is|was|=|:|：) \s* ["']? [^\s"',;]+""",
            re.VERBOSE,
        ),
    ),
    (
        "password",
        ("pass", "pwd"),
        re.compile(r"(?i)(?<![a-z])(?:password|passwd|passcode|pwd|pass)\s+(?!is\b|was\b)" + _CREDENTIAL_TOKEN),
    ),
    # no \b before CJK words: between two Chinese characters there is no word boundary
    (
        "password",
        ("密码", "口令", "pin"),
        re.compile(r"(?i)(?:支付密码|登录密码|密码|口令|pin码?)\s*(?:是|为|[:：=])\s*[^\s，,。；;！!？?]+"),
    ),
    (
        "password",
        ("密码", "口令", "pin"),
        re.compile(r"(?i)(?:支付密码|登录密码|密码|口令|pin码)\s*" + _CREDENTIAL_TOKEN),
    ),
    ("pin", ("pin",), re.compile(r"(?i)\bpin(?:\s*code)?\b\s*(?:is|:|=|：)?\s*\d{4,8}\b")),
    (
        "one_time_code",
        ("otp", "one", "code", "验证码", "动态码", "校验码", "短信码", "确认码"),
        re.compile(
            r"""
        (?i)
        (?: \b(?:otp|one[- ]time\ (?:code|password|passcode)|verification\ code|security\ code
              |2fa\ code|auth(?:entication)?\ code|login\ code|sms\ code)\b
          | 验证码|动态码|校验码|短信码|确认码 )
        \D{0,12}\d{4,8}""",
            re.VERBOSE,
        ),
    ),
    (
        "api_key_named",
        ("key", "token", "secret", "密钥", "令牌", "秘钥"),
        re.compile(
            r"""
        (?i)(?<![a-z])
        (?:api[_ -]?key|secret[_ -]?key|access[_ -]?key|access[_ -]?token|auth[_ -]?token
          |refresh[_ -]?token|client[_ -]?secret|token|secret|密钥|令牌|秘钥)
        ["']? \s* (?:is|:|=|是|为|：) \s* ["']? [^\s，,。；;！!？?"']{8,}""",
            re.VERBOSE,
        ),
    ),
]
_TRAILING = ".!?)]}>"
_CARD = re.compile(r"\b\d(?:[ -]?\d){12,18}\b")
# What `redact` leaves behind. Text that carries it stood next to a secret: validation refuses
# it as a value or statement, since the secret it replaced was the point of the text.
REDACTION_MARK = re.compile(r"\[REDACTED:[a-z_]+\]")


def _luhn_ok(digits: str) -> bool:
    total, alt = 0, False
    for ch in reversed(digits):
        d = ord(ch) - 48
        if alt:
            d *= 2
            if d > 9:
                d -= 9
        total += d
        alt = not alt
    return total % 10 == 0


_WORDS = sorted({w for _, words, _ in _PATTERNS if words for w in words})
_ALWAYS = [(kind, pat) for kind, words, pat in _PATTERNS if words is None]


Armed = list[tuple[str, re.Pattern[str]]]


def armed(text: str) -> Armed:
    """The patterns that can match in `text`: those with no words, and those one of whose words
    `text` holds. A pattern cannot match without one of its words, so the patterns armed for a text
    serve any part of it too (a part holds no word the whole does not)."""
    low = text.casefold()
    present = {w for w in _WORDS if w in low}
    if not present:
        return _ALWAYS
    return [(kind, pat) for kind, words, pat in _PATTERNS if words is None or not present.isdisjoint(words)]


def find_secrets(text: str, patterns: Armed | None = None) -> list[tuple[str, int, int]]:
    """(kind, start, end) spans of anything that looks like a credential or card number.
    `patterns`: `armed` of `text`, or of a text `text` is part of, when the caller has it."""
    found: list[tuple[str, int, int]] = []
    for kind, pat in armed(text) if patterns is None else patterns:
        for m in pat.finditer(text):
            end = m.end()
            while end > m.start() + 1 and text[end - 1] in _TRAILING:
                end -= 1  # the sentence's full stop is not part of the secret
            found.append((kind, m.start(), end))
    if _DIGIT_RUN.search(text):
        for m in _CARD.finditer(text):
            digits = re.sub(r"\D", "", m.group())
            if 13 <= len(digits) <= 19 and _luhn_ok(digits):
                found.append(("card_number", m.start(), m.end()))
    return found


_DIGIT_RUN = re.compile(r"\d[\d -]{11,}")


def contains_secret(text: str) -> bool:
    # runs on every text field stored: stop at the first pattern that matches
    if any(pat.search(text) for _, pat in armed(text)):
        return True
    return bool(_DIGIT_RUN.search(text)) and any(kind == "card_number" for kind, _, _ in find_secrets(text))


def redact(text: str, found: list[tuple[str, int, int]] | None = None) -> str:
    """Replace every secret span by a marker naming its kind; the rest of the text stays.
    `found`: the text's `find_secrets`, when the caller has them already."""
    spans = sorted(find_secrets(text) if found is None else found, key=lambda s: (s[1], -s[2]))
    out, pos = [], 0
    for kind, start, end in spans:
        if start < pos:  # overlaps the span just redacted: widen it
            pos = max(pos, end)
            continue
        out.append(text[pos:start])
        out.append(f"[REDACTED:{kind}]")
        pos = end
    out.append(text[pos:])
    return "".join(out)


def refusal_spans(text: str, found: list[tuple[str, int, int]] | None = None) -> list[tuple[str, int, int]]:
    """Spans a sentence must not overlap to be kept: secrets, and markers left where a producer
    already redacted one (the sentence was about the secret). `found`: as for `redact`."""
    secrets = find_secrets(text) if found is None else found
    return secrets + [("redacted", m.start(), m.end()) for m in REDACTION_MARK.finditer(text)]
