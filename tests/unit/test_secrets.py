"""Secrets (rule 7): detection, redaction, and refusal at validation."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memory.errors import Reason, Rejected
from memory.secrets import contains_secret, find_secrets, redact
from memory.validation import build_record, parse_record

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


@pytest.mark.parametrize("text,kind", [
    ("my password is hunter22", "password"),
    ("pwd: s3cr3t!", "password"),
    ("密码是 abc12345", "password"),
    ("the OTP is 482913", "one_time_code"),
    ("验证码 482913", "one_time_code"),
    ("use sk-abcdefghijklmnopqrstuv", "api_key"),
    ("AKIAABCDEFGHIJKLMNOP", "api_key"),
    ("Authorization: Bearer abcdefghijklmnop.qrstuv", "bearer_token"),
    ("-----BEGIN RSA PRIVATE KEY-----", "private_key"),
    ("api key = 0123456789abcdef", "api_key_named"),
    ("card 4111 1111 1111 1111 exp 12/26", "card_number"),
    ("4242-4242-4242-4242", "card_number"),
])
def test_secrets_found(text, kind):
    assert kind in {k for k, _, _ in find_secrets(text)}
    assert contains_secret(text)


@pytest.mark.parametrize("text", [
    "I prefer detailed answers",
    "order 1234 5678 9012 3456",  # fails the Luhn check: not a card
    "my phone is 030 1234567",
    "the password policy needs review",
    "call me at 10:30",
    "",
])
def test_plain_text_is_not_a_secret(text):
    assert not contains_secret(text)


def test_redact_keeps_the_rest():
    out = redact("ok, my password is hunter22 and card 4111111111111111 thanks")
    assert "hunter22" not in out and "4111111111111111" not in out
    assert out.startswith("ok, my ") and out.endswith("thanks")
    assert "[REDACTED:password]" in out and "[REDACTED:card_number]" in out
    assert redact("nothing here") == "nothing here"


def test_redact_overlapping_spans_once():
    out = redact("token: sk-abcdefghijklmnopqrstuv")
    assert "abcdefghijklmnop" not in out
    assert out.count("[REDACTED:") == 1


def test_engine_refuses_secret_values_and_redacts_evidence():
    with pytest.raises(Rejected) as err:
        build_record(parse_record({"tenant": "t", "user": "u", "attribute": "profile.name",
                                   "value": "otp 123456"}), op_id="o", at=T0)
    assert err.value.reason == Reason.SECRET_VALUE
    rec = build_record(parse_record({
        "tenant": "t", "user": "u", "attribute": "preference.language", "value": "English",
        "evidence": [{"source_id": "turn-1", "quote": "English please, api_key=abcdefgh12345678"}]}),
        op_id="o", at=T0)
    assert "abcdefgh12345678" not in rec.model_dump_json()
