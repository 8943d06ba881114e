"""The one secret detector (rule 7: secrets are never stored).

Extraction, record validation, dead letters and the LLM extractor's redaction all use it, so
what one path refuses every path refuses. Detection is by shape: named credentials ("password
is …", "密码 …", "api key: …"), well-known token formats (provider key prefixes, JWTs, AWS
secret keys, bearer tokens, private key blocks, URLs with a password), one-time codes and PINs,
and card numbers (Luhn-checked).
"""

from __future__ import annotations

from typing import Any

from .models import ID_RE

# The look at one text (compiled); the walks over a JSON value below stay interpreted: a value's
# nesting is only bounded by the producer (compiled recursion would not stop at Python's limit).
from .secret_spans import NAME_STEMS, REDACTION_MARK, bare_secret, contains_secret, find_secrets, redact, refusal_spans

__all__ = [
    "REDACTION_MARK",
    "bare_secret",
    "contains_secret",
    "find_secrets",
    "is_secret_name",
    "redact",
    "refusal_spans",
    "scrub",
    "value_has_secret",
]

# Attribute segments and structure keys that name a credential: whatever value sits under
# them is a secret, even one the patterns of `secret_spans` would not recognise ("hunter2").
_SECRET_NAMES = frozenset(
    {
        "password",
        "passwd",
        "passcode",
        "passphrase",
        "pwd",
        "pin",
        "pin_code",
        "pincode",
        "secret",
        "secrets",
        "api_key",
        "apikey",
        "access_key",
        "secret_key",
        "access_token",
        "refresh_token",
        "auth_token",
        "token",
        "otp",
        "one_time_code",
        "verification_code",
        "cvv",
        "cvc",
        "card_number",
        "credit_card",
        "credential",
        "credentials",
        "private_key",
        "ssn",
        "client_secret",
    }
)
_SECRET_SUFFIXES = ("_password", "_passwd", "_secret", "_token", "_api_key", "_apikey", "_pin", "_otp")


def is_secret_name(name: str) -> bool:
    """An attribute or key name that says its value is a credential (`account.password`,
    `{"api_key": …}`, `wifi.wifipassword`), compared segment by segment of a dotted name."""
    for segment in name.casefold().replace("-", "_").split("."):
        if segment in _SECRET_NAMES or segment.endswith(_SECRET_SUFFIXES):
            return True
        # a credential word run into others ("wifipassword", "db_passphrase_old", "登录密码")
        if any(stem in segment.replace("_", "") for stem in NAME_STEMS):
            return True
    return False


def value_has_secret(value: Any) -> bool:
    """A JSON value with a secret anywhere: in a string, or under a credential-named key."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if contains_secret(item) or bare_secret(item) or REDACTION_MARK.search(item):
                return True
        elif isinstance(item, dict):
            for key, sub in item.items():
                if isinstance(key, str) and (is_secret_name(key) or contains_secret(key)):
                    return True
                stack.append(sub)
        elif isinstance(item, list):
            stack.extend(item)
    return False


# Fields that hold an identifier the client chose (a record's, an op's, a user's), never content.
# One that is id-shaped is kept as it is: a random-looking id is an id, and redacting it would
# turn a valid op into one refused as `invalid_id`.
ID_FIELDS = frozenset({"tenant", "user", "id", "record_id", "op_id", "turn_id", "target", "supersedes", "corrects"})


def scrub(data: Any) -> Any:
    """A copy of a JSON value with every secret redacted and every value under a credential-named
    key replaced: what a producer writes to a topic instead of the secret. An id-shaped value of an
    identifier field (`ID_FIELDS`) is kept."""
    if isinstance(data, str):
        return redact(data)
    if isinstance(data, list):
        return [scrub(item) for item in data]
    if isinstance(data, dict):
        out: dict[Any, Any] = {}
        for key, value in data.items():
            name = key if isinstance(key, str) else str(key)
            if name in ID_FIELDS and isinstance(value, str) and ID_RE.fullmatch(value):
                out[key] = value
            elif is_secret_name(name) or (
                name == "value"
                and (
                    (isinstance(data.get("attribute"), str) and is_secret_name(data["attribute"]))
                    or (isinstance(value, str) and bare_secret(value))  # a value that is itself a key
                )
            ):
                out[redact(name)] = "[REDACTED:secret]" if value is not None else None
            else:
                out[redact(name) if isinstance(key, str) else key] = scrub(value)
        return out
    return data
