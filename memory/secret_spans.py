"""The secret detector's look at one text: where it holds a credential or a card number, and the
text with those redacted (`memory.secrets` is the detector's whole interface; this part is compiled
with mypyc, as it runs on every turn and every stored text).

Besides the fixed formats below, a *random token* is a credential where one stands:
- within a few words of a secret word or a provider's name (`data/secret_words.json`: "aws secret
  X", "X is my API key", "我的密钥 X"), with or without ":", "=" or "is" between;
- alone, when it has 32 characters or more, all three classes below, and is not part of a link:
  a key pasted with nothing said of it;
- as the whole of a record value or a match value (`bare_secret`): a value that is itself a key.
A random token is a run of 24 or more of `A-Za-z0-9+/=_-` that mixes at least two of capitals,
small letters and digits, and looks drawn at random rather than written: its letters and digits
change class (capital / small / digit) at 30% or more of their steps, or at 15% or more with under
30% vowels among its letters (words have vowels, random draws few). Words joined into identifiers
and numbers with a prefix ("ORDER-2024-…") change class rarely; digits with separators (order and
tracking numbers, ISBNs) have one class. Hex strings and UUIDs are not random tokens: they are
digests and ids as often as keys, so they count only beside a secret word, and not even there in a
sentence that talks of commits, hashes or trace ids (`digest_words`). A token opened by, or right
after, a public key's or a digest's prefix (`ssh-ed25519`, `sha512-`) is neither. A provider's key
prefix (`key_prefixes`) marks a key of any length.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any


def _word_lists() -> dict[str, Any]:
    raw = resources.files("slotstream.memory").joinpath("data", "secret_words.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(raw)
    return data


_LISTS = _word_lists()


def _phrase(word: str, compound: bool = False) -> str:
    """A listed word as a pattern: its parts with a space, "_" or "-" between them, or none; a
    word of Latin letters only where no letter touches it ("key" is not in "keyboard"), or, for a
    word closing an identifier, no letter after it ("AppSecret")."""
    body = r"[ _-]?".join(re.escape(part) for part in word.split())
    if not word.isascii():
        return body
    return rf"{body}(?![A-Za-z])" if compound else rf"(?<![A-Za-z]){body}(?![A-Za-z])"


def _alternation(words: list[str], compound: tuple[str, ...] = ()) -> re.Pattern[str]:
    # longest first: "api key" is one word, not "key" after "api"
    ordered = sorted(words, key=len, reverse=True)
    return re.compile("(?i)" + "|".join(_phrase(w, w in compound) for w in ordered))


_COMPOUND: tuple[str, ...] = tuple(_LISTS["compound_words"])
_CONTEXT_WORDS: list[str] = [
    *_LISTS["secret_words"]["en"],
    *_LISTS["secret_words"]["zh"],
    *_COMPOUND,
    *_LISTS["provider_words"],
]
_CONTEXT = _alternation(_CONTEXT_WORDS, _COMPOUND)
# the words that must be in the casefolded text for the context pattern to be tried
_CONTEXT_ARMS: tuple[str, ...] = tuple(sorted({w.split()[0].casefold() for w in _CONTEXT_WORDS}))
_DIGEST = _alternation([*_LISTS["digest_words"]["en"], *_LISTS["digest_words"]["zh"]])
_PUBLIC_PREFIXES: tuple[str, ...] = tuple(_LISTS["public_prefixes"])
_KEY_PREFIXES: list[str] = _LISTS["key_prefixes"]
_UPPER_ID_PREFIXES: list[str] = _LISTS["upper_id_prefixes"]
_ZH_SECRET = "|".join(sorted((re.escape(w) for w in _LISTS["secret_words"]["zh"]), key=len, reverse=True))
_ZH_SETTING = "|".join(sorted((re.escape(w) for w in _LISTS["zh_setting_words"]), key=len, reverse=True))
NAME_STEMS: tuple[str, ...] = tuple(_LISTS["name_stems"])

# A token that looks like a credential rather than a word: it has a digit or a symbol in it.
_CREDENTIAL_TOKEN = r"(?=[^\s]*[0-9!@#$%^&*+=?~])[^\s，,。；;！？]{4,}"
_QUOTED = r"""(?:"[^"\n]{1,64}"|'[^'\n]{1,64}'|“[^”\n]{1,64}”|‘[^’\n]{1,64}’)"""
_QUOTED_OR_CREDENTIAL = f"(?:{_QUOTED}|{_CREDENTIAL_TOKEN})"

# (kind, words that must be in the casefolded text for the pattern to be tried — None: always
# tried —, pattern). Checking the words first makes clean text cost one pass of `in` tests
# instead of every pattern's search.
_PATTERNS: list[tuple[str, tuple[str, ...] | None, re.Pattern[str]]] = [
    (
        "api_key",
        tuple(sorted({p.casefold() for p in _KEY_PREFIXES + _UPPER_ID_PREFIXES})),
        # a provider's prefix, then 12 or more key characters: any length a provider issues
        re.compile(
            r"(?<![A-Za-z0-9])(?:"
            + "|".join(re.escape(p) for p in sorted(_KEY_PREFIXES, key=len, reverse=True))
            + r")[-_.A-Za-z0-9]{12,}"
            + r"|(?<![A-Za-z0-9])(?:"
            + "|".join(re.escape(p) for p in _UPPER_ID_PREFIXES)
            + r")(?:[A-Z0-9]{16}|(?=[A-Z]*[0-9])[A-Z0-9]{12,}(?![A-Za-z0-9]))"
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
        [^\s:/@]* : [^\s@/]+ @                 # user:password@ (or :password@)
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
    (
        # "the wifi password at the cabin is X", "the passphrase for my GPG key is 'a b c'",
        # "set the router password to X", "password is now X"
        "password",
        ("pass", "pwd", "pin"),
        re.compile(
            r"(?i)(?<![a-z])(?:password|passwd|passcode|passphrase|pwd|pin)\s+"
            r"(?:(?:for|at|on|of|to)\s+[^.!?,;:\n]{1,30}?\s+(?:is|was)\s+|(?:is\s+now|now|changed\s+to|set\s+to|to)\s+)"
            + _QUOTED_OR_CREDENTIAL
        ),
    ),
    (
        # a quoted password, spaces and all: "password is 'copper lantern 42'"
        "password",
        ("pass", "pwd"),
        re.compile(r"(?i)(?<![a-z])(?:password|passwd|passcode|passphrase|pwd)\s*(?:is|was|=|:|：)\s*" + _QUOTED),
    ),
    (
        # "Sunflower*Meadow88 — that's the new password"
        "password",
        ("pass", "pin"),
        re.compile(
            # starting only where a token starts: from inside one, the same match comes from its
            # start, and trying every position of a long run is quadratic in it
            r"(?<![^\s，,。；;！？])"
            + _CREDENTIAL_TOKEN
            + r"\s*[—–-]+\s*(?i:that's|that is|it's|this is)\s+(?i:(?:my|the|our)\s+)?(?i:(?:new|old)\s+)?"
            + r"(?i:password|passcode|passphrase|pin)\b"
        ),
    ),
    (
        # a login written as "user / password" after the word login or account
        "password",
        ("login", "log-in", "sign-in", "account", "user", "账号", "帐号", "用户名", "登录"),
        re.compile(
            r"(?i)(?<![a-z])(?:login|log-in|sign-in|account|username|user|账号|帐号|用户名|登录)[^\s:：]{0,3}\s*[:：=]?\s*"
            r"[^\s/]+\s+/\s+" + _CREDENTIAL_TOKEN
        ),
    ),
    (
        # "邮箱密码改成了 X", "授权码是 X", "把这个口令记一下 X": a Chinese secret word, a word of
        # setting or telling, then a Latin token
        "password",
        tuple(_LISTS["secret_words"]["zh"]),
        re.compile(rf"(?:{_ZH_SECRET})\s*(?:{_ZH_SETTING})\s*[:：=]?\s*[A-Za-z0-9!@#$%^&*+=?~_\-./]{{6,}}"),
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


def _isbn(digits: str) -> bool:
    # an ISBN-13 (978/979…) passes the Luhn check as often as not; no card number opens so
    return len(digits) == 13 and digits.startswith(("978", "979"))


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
            if kind == "api_key_named" and _digest_named(text, m):
                continue
            end = m.end()
            while end > m.start() + 1 and text[end - 1] in _TRAILING:
                end -= 1  # the sentence's full stop is not part of the secret
            found.append((kind, m.start(), end))
    found += _token_spans(text)
    if _DIGIT_RUN.search(text):
        for m in _CARD.finditer(text):
            digits = re.sub(r"\D", "", m.group())
            if 13 <= len(digits) <= 19 and _luhn_ok(digits) and not _isbn(digits):
                found.append(("card_number", m.start(), m.end()))
    return found


_DIGIT_RUN = re.compile(r"\d[\d -]{11,}")


def contains_secret(text: str) -> bool:
    # runs on every text field stored: stop at the first pattern that matches
    for kind, pat in armed(text):
        if kind != "api_key_named":
            if pat.search(text):
                return True
        elif any(not _digest_named(text, m) for m in pat.finditer(text)):
            return True
    if _token_spans(text, first_only=True):
        return True
    return bool(_DIGIT_RUN.search(text)) and any(kind == "card_number" for kind, _, _ in find_secrets(text))


# --- random tokens (the rule is in the module's docstring) -----------------------------------------

MIN_TOKEN_CHARS = 24
# a random token this long mixing capitals, small letters and digits is a key even alone
ALONE_TOKEN_CHARS = 32
_TOKEN = re.compile(rf"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/=_-]{{{MIN_TOKEN_CHARS},}}")
_HEX = re.compile(r"(?:0x)?[0-9A-Fa-f-]+")  # with a hex literal's 0x (addresses, hashes)
_DIGITS = re.compile(r"[0-9+/=_-]+")
_VOWELS = frozenset("aeiouAEIOU")
# how far (in characters) a secret word may stand before or after its token
_WORD_BEFORE, _WORD_AFTER = 40, 32
# what ends the sentence between a word and a token: the word does not speak of the token
_SENTENCE_END = re.compile(r"[。！？!?\n;；]|\.\s")


def _char_class(ch: str) -> int:
    return 0 if "A" <= ch <= "Z" else 1 if "a" <= ch <= "z" else 2


def _three_classes(token: str) -> bool:
    return len({_char_class(ch) for ch in token if ch.isascii() and ch.isalnum()}) == 3


def random_token(token: str) -> bool:
    """A token drawn at random rather than written (the module's docstring says the rule)."""
    if len(token) < MIN_TOKEN_CHARS or _HEX.fullmatch(token) or _DIGITS.fullmatch(token):
        return False
    chars = [ch for ch in token if ch.isascii() and ch.isalnum()]
    classes = {_char_class(ch) for ch in chars}
    if len(classes) < 2 or len(chars) < MIN_TOKEN_CHARS - 4:
        return False
    changes = sum(1 for k in range(1, len(chars)) if _char_class(chars[k - 1]) != _char_class(chars[k]))
    rate = changes / (len(chars) - 1)
    if rate >= 0.30:
        return True
    letters = [ch for ch in chars if ch.isalpha()]
    vowels = sum(1 for ch in letters if ch in _VOWELS)
    return rate >= 0.15 and vowels < 0.30 * len(letters)


def _armed_context(text: str) -> bool:
    low = text.casefold()
    return any(w in low for w in _CONTEXT_ARMS)


def _near(text: str, gap_start: int, gap_end: int, limit: int) -> bool:
    return 0 <= gap_end - gap_start <= limit and not _SENTENCE_END.search(text, gap_start, gap_end)


def _sentence_around(text: str, start: int, end: int) -> str:
    before = [m.end() for m in _SENTENCE_END.finditer(text, 0, start)]
    after = _SENTENCE_END.search(text, end)
    return text[before[-1] if before else 0 : after.start() if after else len(text)]


def _digest_named(text: str, m: re.Match[str]) -> bool:
    """A named key whose value is hex, said in talk of commits or hashes ("the commit that rotated
    the secret key is 93fd92…"): a digest, not the key."""
    value = m.group().split()[-1].lstrip(":=：\"'")
    return len(value) >= 7 and bool(_HEX.fullmatch(value)) and bool(_DIGEST.search(_sentence_around(text, *m.span())))


def _public(text: str, start: int, token: str) -> bool:
    """A public key or a digest: opened by one of `public_prefixes`, or right after one."""
    low = token.casefold()
    before = text[max(0, start - 24) : start].casefold().rstrip()
    return any(low.startswith(p) or before.endswith(p.rstrip()) for p in _PUBLIC_PREFIXES)


def _in_link(text: str, start: int) -> bool:
    # the whitespace-delimited word holding the token is a link: its path names a page
    word_start = max(text.rfind(ch, 0, start) for ch in " \n\t")
    return "://" in text[word_start + 1 : start] or text[word_start + 1 : start].startswith("www.")


def _token_spans(text: str, first_only: bool = False) -> list[tuple[str, int, int]]:
    """Random tokens next to a secret word or a provider's name, or long enough (and mixing
    capitals, small letters and digits) to be a pasted key alone; hex strings and UUIDs next to a
    secret word, where no talk of commits or hashes makes them digests."""
    found: list[tuple[str, int, int]] = []
    if len(text) < MIN_TOKEN_CHARS:
        return found
    words: list[tuple[int, int]] | None = None
    for m in _TOKEN.finditer(text):
        token, start, end = m.group(), m.start(), m.end()
        hexlike = bool(_HEX.fullmatch(token)) and sum(ch != "-" for ch in token) >= MIN_TOKEN_CHARS
        if not (hexlike or random_token(token)) or _public(text, start, token):
            continue
        if not hexlike and len(token) >= ALONE_TOKEN_CHARS and _three_classes(token) and not _in_link(text, start):
            secret = True
        else:
            if words is None:
                words = [(w.start(), w.end()) for w in _CONTEXT.finditer(text)] if _armed_context(text) else []
            secret = any(
                _near(text, w_end, start, _WORD_BEFORE) or _near(text, end, w_start, _WORD_AFTER)
                for w_start, w_end in words
            )
            if secret and hexlike and _DIGEST.search(_sentence_around(text, start, end)):
                secret = False
        if secret:
            found.append(("secret_token", start, end))
            if first_only:
                break
    return found


_BARE = re.compile(rf"[A-Za-z0-9+/=_.-]{{{MIN_TOKEN_CHARS},}}")


def bare_secret(text: str) -> bool:
    """A value that is itself a random token (quotes and surrounding blanks aside; a "." may join
    its parts). Hex strings and UUIDs alone are not: they are digests and ids as often as keys."""
    core = text.strip().strip("\"'`")
    return bool(_BARE.fullmatch(core)) and random_token(core.replace(".", ""))


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
