"""Secrets (rule 7): detection, redaction, and refusal at validation."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from slotstream.memory.errors import Reason, Rejected
from slotstream.memory.extraction import RuleExtractor, Turn
from slotstream.memory.extraction.text import split_sentences
from slotstream.memory.secret_spans import _PATTERNS, armed
from slotstream.memory.secrets import (
    contains_secret,
    find_secrets,
    is_secret_name,
    redact,
    scrub,
    value_has_secret,
)
from slotstream.memory.validation import build_record, parse_command, parse_record

T0 = datetime(2024, 1, 1, tzinfo=UTC)


SECRETS_FOUND = [
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
    ("token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0", "jwt"),
    ("postgres://app:S3cretPw@db.internal:5432/main", "connection_string"),
    ("redis://default:hunter22@cache:6379/0", "connection_string"),
    ("aws secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_key"),
    ("my pass Xy9!qqzz", "password"),
    ("pwd hunter2", "password"),
    ("pass: letmein", "password"),
    ('{"password": "zebra-horse"}', "password"),
    ("user_password=abc", "password"),
    ("密码 abc12345", "password"),
    ("我的支付密码是 778899", "password"),
    ("pin码:1234", "password"),
    ("my PIN is 4321", "pin"),
    ("动态码 123456", "one_time_code"),
    ("短信码：884512", "one_time_code"),
    ("security code 5521", "one_time_code"),
    ("令牌是abcdefgh1234", "api_key_named"),
    ("client_secret = 0a1b2c3d4e5f", "api_key_named"),
    ("ghp_abcdefghijklmnopqrstuvwxyz0123", "api_key"),
    ("xoxb-1234567890-abcdefghij", "api_key"),
]


@pytest.mark.parametrize("text,kind", SECRETS_FOUND)
def test_secrets_found(text, kind):
    assert kind in {k for k, _, _ in find_secrets(text)}
    assert contains_secret(text)


PLAIN_TEXTS = [
    "I prefer detailed answers",
    "pass the salt please",
    "I will pass on that",
    "the secret is that I like tea",
    "use token-based auth",
    "sha1 356a192b7913b04c54574d18c28d46e6395428ab",
    "I forgot my password again",
    "我忘了密码",
    "visit https://example.com/path?q=1",
    "run pwd to see the folder",
    "order 1234 5678 9012 3456",  # fails the Luhn check: not a card
    "my phone is 030 1234567",
    "the password policy needs review",
    "call me at 10:30",
    "",
]


@pytest.mark.parametrize("text", PLAIN_TEXTS)
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
        build_record(
            parse_record({"tenant": "t", "user": "u", "attribute": "profile.name", "value": "otp 123456"}),
            op_id="o",
            at=T0,
        )
    assert err.value.reason == Reason.SECRET_VALUE
    rec = build_record(
        parse_record(
            {
                "tenant": "t",
                "user": "u",
                "attribute": "preference.language",
                "value": "English",
                "evidence": [{"source_id": "turn-1", "quote": "English please, api_key=abcdefgh12345678"}],
            }
        ),
        op_id="o",
        at=T0,
    )
    assert "abcdefgh12345678" not in rec.model_dump_json()


@pytest.mark.parametrize(
    "name",
    [
        "account.password",
        "profile.pin",
        "knowledge.api_key",
        "secrets.aws",
        "credentials",
        "bank.card_number",
        "user.db_password",
        "x.session_token",
    ],
)
def test_credential_names(name):
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "preference.response.detail",
        "preference.token_budget",
        "profile.home_city",
        "knowledge.openai_key_rotation_policy",
        "knowledge.pinned_version",
    ],
)
def test_ordinary_names(name):
    assert not is_secret_name(name)


def test_structured_values_are_searched_keys_and_strings():
    assert value_has_secret({"password": "hunter2"})
    assert value_has_secret({"db": {"conn": "postgres://a:b@h/d"}})
    assert value_has_secret(["fine", "otp 123456"])
    assert value_has_secret("[REDACTED:password]")  # a marker stands where a secret was
    assert not value_has_secret({"editor": "vim", "tabs": 4})


@pytest.mark.parametrize(
    "record",
    [
        {"attribute": "account.password", "value": "correct horse"},
        {"attribute": "knowledge.creds", "value": {"password": "zebra"}},
        {"attribute": "knowledge.note", "value": "fine", "statement": "pwd hunter2"},
        {"attribute": "knowledge.note", "value": "fine", "evidence": [{"source_id": "sk-abcdefghijklmnopqrst"}]},
        {"attribute": "knowledge.note", "value": "[REDACTED:api_key]"},
        {"attribute": "knowledge.note", "value": "fine", "statement": "[REDACTED:password]"},
    ],
)
def test_every_text_field_of_a_record_is_checked(record):
    with pytest.raises(Rejected) as err:
        build_record(parse_record({"tenant": "t", "user": "u", "kind": "knowledge", **record}), op_id="o", at=T0)
    assert err.value.reason == Reason.SECRET_VALUE


def test_a_correction_command_is_checked_too():
    with pytest.raises(Rejected) as err:
        parse_command({"op": "correct", "tenant": "t", "user": "u", "record_id": "r1", "value": "otp 123456"})
    assert err.value.reason == Reason.SECRET_VALUE


def test_scrub_replaces_secrets_and_values_under_credential_names():
    body = {
        "tenant": "t",
        "attribute": "account.password",
        "value": "hunter2",
        "statement": "my api key is sk-abcdefghijklmnop1234",
        "nested": {"token": "abc", "ok": "fine"},
    }
    out = scrub(body)
    assert out["value"] == "[REDACTED:secret]" and out["nested"]["token"] == "[REDACTED:secret]"
    assert "sk-abcdefghijklmnop1234" not in out["statement"] and out["nested"]["ok"] == "fine"
    assert scrub({"text": "I prefer short answers."}) == {"text": "I prefer short answers."}


# What the extractor refuses, record validation refuses: one detector behind both.
REFUSED_TURNS = [
    "My password is hunter2222.",
    "pwd: s3cr3t!",
    "密码是 abc12345",
    "我的密码 abc12345",
    "动态码 123456",
    "验证码 482913",
    "令牌是abcdefgh1234",
    "pin码:1234",
    "my PIN is 4321",
    "the OTP is 482913",
    "use sk-abcdefghijklmnopqrstuv",
    "api key = 0123456789abcdef",
    "card 4111 1111 1111 1111",
    "-----BEGIN RSA PRIVATE KEY-----",
    "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jV",
    "connect to postgres://app:S3cretPw@db/main",
    "aws wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
]


@pytest.mark.parametrize("text", REFUSED_TURNS)
def test_what_extraction_refuses_the_record_path_refuses(text):
    out = RuleExtractor().extract(Turn(tenant="t", user="u", session="s", text=text + " Answer in English.", at=T0))
    assert "secret_value" in out.refused
    with pytest.raises(Rejected) as err:
        build_record(
            parse_record(
                {"tenant": "t", "user": "u", "kind": "knowledge", "attribute": "knowledge.note", "value": text}
            ),
            op_id="o",
            at=T0,
        )
    assert err.value.reason == Reason.SECRET_VALUE


def test_the_patterns_armed_for_a_turn_find_in_each_of_its_sentences_what_the_sentences_own_find():
    """The extractor arms the secret patterns once a turn (`armed`) and runs them on each sentence:
    a pattern cannot match without one of its words, so neither a text nor a part of it loses a
    secret to the patterns left unarmed."""
    every_pattern = [(kind, pattern) for kind, _, pattern in _PATTERNS]
    texts = [text for text, _ in SECRETS_FOUND] + PLAIN_TEXTS
    turns = texts + [
        f"{a}. {b}! {c}" for a, b, c in zip(texts, texts[7:] + texts[:7], texts[3:] + texts[:3], strict=True)
    ]
    turns += [f"{PLAIN_TEXTS[k % len(PLAIN_TEXTS)]}. {text.upper()}" for k, (text, _) in enumerate(SECRETS_FOUND)]
    found_in_sentences = 0
    for turn in turns:
        patterns = armed(turn)
        assert find_secrets(turn, every_pattern) == find_secrets(turn), turn  # the unarmed ones find nothing
        for sentence in split_sentences(turn):
            found = find_secrets(sentence.text)
            assert find_secrets(sentence.text, patterns) == found, (turn, sentence.text)
            assert find_secrets(sentence.text, every_pattern) == found, (turn, sentence.text)
            found_in_sentences += len(found)
    assert found_in_sentences >= 2 * len(SECRETS_FOUND)  # the turns' secrets were in their sentences
