"""Secret detection shared by the extractor and the engine: secrets are never stored (rule 7)."""

from __future__ import annotations

import re

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("api_key", re.compile(r"\b(?:sk|pk|rk|ghp|gho|xox[abp]|AKIA)[-_A-Za-z0-9]{12,}\b")),
    ("bearer_token", re.compile(r"\bBearer\s+[A-Za-z0-9._\-]{16,}")),
    ("private_key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")),
    ("password", re.compile(r"(?i)\b(?:password|passwd|pwd|passcode)\s*(?:is|:|=)\s*\S+")),
    # no \b before CJK words: between two Chinese characters there is no word boundary
    ("password", re.compile(r"(?:密码|口令)\s*(?:是|为|:|：|=)\s*[^\s。，；！？,;!?]+")),
    ("one_time_code", re.compile(r"(?i)(?:\b(?:otp|one[- ]time (?:code|password)|verification code|2fa code)\b|验证码)\D{0,12}\d{4,8}")),
    ("api_key_named", re.compile(r"(?i)\b(?:api[_ -]?key|secret[_ -]?key|access[_ -]?token|token|密钥)\s*(?:is|:|=|是|为)\s*\S{8,}")),
]
_CARD = re.compile(r"\b\d(?:[ -]?\d){12,18}\b")


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


def find_secrets(text: str) -> list[tuple[str, int, int]]:
    """(kind, start, end) spans of anything that looks like a credential or card number."""
    found: list[tuple[str, int, int]] = []
    for kind, pat in _PATTERNS:
        for m in pat.finditer(text):
            found.append((kind, m.start(), m.end()))
    for m in _CARD.finditer(text):
        digits = re.sub(r"\D", "", m.group())
        if 13 <= len(digits) <= 19 and _luhn_ok(digits):
            found.append(("card_number", m.start(), m.end()))
    return found


def _scoped(pattern: str) -> str:
    return f"(?i:{pattern[4:]})" if pattern.startswith("(?i)") else f"(?:{pattern})"


_ANY = re.compile("|".join(_scoped(pat.pattern) for _, pat in _PATTERNS))
_DIGIT_RUN = re.compile(r"\d[\d -]{11,}")


def contains_secret(text: str) -> bool:
    # one combined pass first: this runs on every record the engine stores
    if _ANY.search(text):
        return True
    return bool(_DIGIT_RUN.search(text)) and bool(find_secrets(text))


def redact(text: str) -> str:
    """Replace every secret span by a marker naming its kind; the rest of the text stays."""
    spans = sorted(find_secrets(text), key=lambda s: s[1])
    out, pos = [], 0
    for kind, start, end in spans:
        if start < pos:
            continue
        out.append(text[pos:start])
        out.append(f"[REDACTED:{kind}]")
        pos = end
    out.append(text[pos:])
    return "".join(out)
