"""Secrets beyond the fixed formats: random tokens beside a secret word or alone, keys of
non-standard length behind a provider's prefix, Chinese phrasings, values that are themselves a
key, and the ordinary long tokens (hashes, UUIDs, order numbers) that must pass."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from slotstream.memory.errors import Reason, Rejected
from slotstream.memory.secret_spans import bare_secret, random_token
from slotstream.memory.secrets import contains_secret, find_secrets, is_secret_name, redact, scrub
from slotstream.memory.validation import build_record, parse_command, parse_record

T0 = datetime(2024, 1, 1, tzinfo=UTC)
AWS_44 = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY0aB1"  # four past the standard 40
RANDOM_30 = "Xk9mP2vL8qR4tZ7wN3bY6cH1jD5fQa"
LOWER_RANDOM = "k7x2m9p4q8r1t5v3w6y0z2a4"  # small letters and digits, 24
HEX_32 = "5d80b08cf406a51f6acead3f14840063"
COMMIT = "3f9a2b1c4d5e6f708192a3b4c5d6e7f8091a2b3c"
SHA256 = "3bd12062305650709f135d884b00fd84be068c7de47d5ee7b0d333448a8aafd4"
UUID = "550e8400-e29b-41d4-a716-446655440000"


@pytest.mark.parametrize(
    "text,secret",
    [
        # known formats at lengths past the standard ones
        ("AKIAIOSFODNN7EXAMPLEXX", "AKIAIOSFODNN7EXAMPLEXX"),
        ("the key sk-proj-" + "aB3" * 30, "sk-proj-" + "aB3" * 30),
        ("ghp_aB3dE5fG7hJ9kL", "ghp_aB3dE5fG7hJ9kL"),
        ("LTAI5tIKYHEbrU6pPumxVuG9", "LTAI5tIKYHEbrU6pPumxVuG9"),
        # a secret word with no ":", "=" or "is" between it and the token
        (f"aws secret {AWS_44}", AWS_44),
        (f"my stripe secret {RANDOM_30} for the shop", RANDOM_30),
        (f"{RANDOM_30} is my API key", RANDOM_30),
        (f"the AppSecret {RANDOM_30}", RANDOM_30),
        (f"deploy token {LOWER_RANDOM}", LOWER_RANDOM),
        # hex and UUID keys beside a secret word, with no talk of commits or hashes
        (f"the Twilio auth token {HEX_32}", HEX_32),
        (f"heroku api key {UUID}", UUID),
        # a long random token alone is a pasted key
        ("use this for the deploy: 3lNVVyHPXlX4oODcMyzpY8nmhypMA7aJTp2dGV", "3lNVVyHPXlX4oODcMyzpY8nmhypMA7aJTp2dGV"),
        # Chinese phrasings
        (f"我的阿里云密钥 {RANDOM_30}", RANDOM_30),
        (f"七牛云的 SK 是 {AWS_44}", AWS_44),
        ("邮箱密码改成了 Xy@2024spring，帮我记住", "Xy@2024spring"),
        ("SMTP 授权码是 lidijjvstxygpdky", "lidijjvstxygpdky"),
        ("把这个口令记一下 mK7$wq2!Lz9p", "mK7$wq2!Lz9p"),
        # passwords said in more ways
        ("The wifi password at the cabin is bluecanoe77", "bluecanoe77"),
        ("I set the router admin password to 7#qP!vR2@zL9wX$e last night", "7#qP!vR2@zL9wX$e"),
        ("Sunflower*Meadow88 — that's the new password", "Sunflower*Meadow88"),
        ("The passphrase for my GPG key is 'copper lantern mosaic 42'", "copper lantern mosaic 42"),
        ("Netflix login: jane@example.com / Sunbeam_4412", "Sunbeam_4412"),
        ("cache at redis://:tn433OXfXkNVouRx@10.0.4.12:6379/0", "tn433OXfXkNVouRx"),
    ],
)
def test_found_and_redacted(text: str, secret: str) -> None:
    assert contains_secret(text)
    assert secret not in redact(text)


@pytest.mark.parametrize(
    "text",
    [
        f"Full hash of the release commit is {COMMIT}.",
        f"The commit that rotated the secret key is {COMMIT}, link it in the postmortem.",
        f"回滚了 {COMMIT} 那个提交之后 CI 又绿了",
        f"sha256 of the ISO: {SHA256}",
        f"Support asked for the request id, it was {UUID}",
        f"The primary key is a UUID like {UUID}",
        f"trace id {HEX_32} shows the slow span",
        "My Amazon order number is 112-2761416-7554284, the blender never arrived",
        "ISBN 978-0-306-40615-7 is the edition the professor wants",
        "UPS tracking is 1ZMWKRJV0175471444",
        "The password reset ticket is INC-20231105-0042",
        "I saved the scan as 2024-03-14_tax_return_final_v3_signed_scan_pages01-12.pdf",
        "My public SSH key is ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPr+YMPBVJR+lVHHO+fvfHrGXaESivVd5ws+u5gP me@laptop",
        "the integrity hash is sha512-9wX4pLR2RrvIhftHhaNP9zWN8nON2aBJP5588B8JiI3q0QkuNsVZzo+AId26pkoLQbK2cBSq==",
        "the key config is MyApplicationConfigurationV2 in release-v2-build-45-final-rc3",
        "Here's the doc: https://docs.google.com/document/d/1iRXjAeUKZH4lRccU7vfwLaKQ17V3NDtqKkXESkmuY0V/edit",
        "The song is in the key of F# minor, and the monkey token count was 128000",
        "下学期选了密码学，讲 RSA 和 AES",
        "Send the refund to 0x71C7656EC7ab88b098defB751B7401B5f6d8976F, my wallet address",
        "密码重置工单号是 INC-20240312-0117",
    ],
)
def test_ordinary_tokens_pass(text: str) -> None:
    assert not contains_secret(text), find_secrets(text)
    assert redact(text) == text


@pytest.mark.parametrize("token", [AWS_44, RANDOM_30, LOWER_RANDOM, "M4CoossxrSUehgoB4vdc8G7r77QfyW12mfBnFbzfo2cU"])
def test_random_tokens(token: str) -> None:
    assert random_token(token) and bare_secret(token) and bare_secret(f' "{token}" ')


@pytest.mark.parametrize(
    "token",
    [
        COMMIT,  # hex: a digest as often as a key
        SHA256,
        UUID,
        "ORDER-2024-11-05-0000012345",  # digits and a word: few changes of class
        "9400111899223100012345",
        "MyApplicationConfigurationV2",  # written words
        "supercalifragilisticexpialidocious",  # one class
        "short9Xk2",
        "978-1-4028-9462-6",
    ],
)
def test_not_random_tokens(token: str) -> None:
    assert not bare_secret(token)


def _record(value: object, attribute: str = "knowledge.note") -> None:
    build_record(
        parse_record({"tenant": "t", "user": "u", "kind": "knowledge", "attribute": attribute, "value": value}),
        op_id="o",
        at=T0,
    )


@pytest.mark.parametrize("value", [RANDOM_30, AWS_44, {"note": RANDOM_30}, [LOWER_RANDOM]])
def test_a_value_that_is_itself_a_key_is_refused(value: object) -> None:
    with pytest.raises(Rejected) as err:
        _record(value)
    assert err.value.reason == Reason.SECRET_VALUE


@pytest.mark.parametrize("value", [COMMIT, UUID, SHA256, "112-2761416-7554284", "978-1-4028-9462-6", "v2.7.11"])
def test_ordinary_values_are_kept(value: str) -> None:
    _record(value)


@pytest.mark.parametrize(
    "command",
    [
        {"op": "forget", "match": {"attribute": "knowledge.bucket", "value": RANDOM_30}},
        {"op": "forget", "match": {"attribute": "knowledge.note", "value": f"the Twilio token {HEX_32}"}},
        {"op": "forget", "match": {"attribute": "wifi.wifipassword", "value": "bluecanoe"}},
        {"op": "retract", "match": {"attribute": "knowledge.note", "value": AWS_44}},
        {"op": "correct", "record_id": "r1", "value": RANDOM_30},
        {"op": "restate", "value": "x", "old_value": RANDOM_30, "statement": "make that x"},
    ],
)
def test_a_command_naming_a_secret_value_is_refused(command: dict[str, object]) -> None:
    with pytest.raises(Rejected) as err:
        parse_command({"tenant": "t", "user": "u", **command})
    assert err.value.reason == Reason.SECRET_VALUE


def test_a_forget_of_an_ordinary_value_is_accepted() -> None:
    parse_command({"op": "forget", "tenant": "t", "user": "u", "match": {"attribute": "knowledge.ref", "value": UUID}})


@pytest.mark.parametrize("name", ["wifi.wifipassword", "db.passphrase_old", "account.登录密码", "x.clientsecret"])
def test_credential_words_run_into_a_name(name: str) -> None:
    assert is_secret_name(name)


def test_a_producer_writes_no_bare_key_under_value() -> None:
    out = scrub({"match": {"attribute": "knowledge.note", "value": RANDOM_30}, "op_id": "sco_" + "ab12" * 8})
    assert out["match"]["value"] == "[REDACTED:secret]" and out["op_id"] == "sco_" + "ab12" * 8


def test_an_id_that_looks_random_is_kept_and_the_content_beside_it_still_redacted() -> None:
    # a record id the client chose, shaped like a drawn token: redacting it would make a valid
    # forget one refused as invalid_id (the OpenAPI fuzzing's stateful phase found this)
    token_like = "u_pNJmjtsyGW69U9CKM37MVrYfZENGvd0i_"
    command = {"op": "forget", "tenant": "t1", "user": "alice", "record_id": token_like, "value": token_like}
    out = scrub(command)
    assert out["record_id"] == token_like and out["user"] == "alice"
    assert out["value"] == "[REDACTED:secret]"  # the same text as content is still a secret
    # an id field that is not id-shaped is content like any other
    assert scrub({"record_id": "my password is hunter2hunter2"})["record_id"] != "my password is hunter2hunter2"


@pytest.mark.parametrize(
    "text",
    [
        "Sunflower*Meadow88 — that's the new password",
        "note，Sunflower*Meadow88 - it's my pin",
        "a:b:Sunflower*Meadow88 — this is our password",
        "x" * 5000 + "9 — that's the password",
        "word " * 200 + "Lantern#7 – that is my old passcode",
    ],
)
def test_a_token_said_to_be_the_password_is_found_from_where_the_token_starts(text: str) -> None:
    # the pattern starts only at a token's start (so a long run is not tried at every position):
    # it finds what the same pattern without that anchor finds
    spans = [(start, end) for kind, start, end in find_secrets(text) if kind == "password"]
    unanchored = re.compile(
        r"(?=[^\s]*[0-9!@#$%^&*+=?~])[^\s，,。；;！？]{4,}\s*[—–-]+\s*(?i:that's|that is|it's|this is)\s+"
        r"(?i:(?:my|the|our)\s+)?(?i:(?:new|old)\s+)?(?i:password|passcode|passphrase|pin)\b"
    )
    expected = [(m.start(), m.end()) for m in unanchored.finditer(text)]
    assert expected and all(span in spans for span in expected)
    assert "Meadow88" not in redact(text) and "Lantern#7" not in redact(text)
