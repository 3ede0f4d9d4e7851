"""Only genuine, fresh Feishu requests are opened; everything else is rejected with a reason."""

from __future__ import annotations

import json

import pytest

from bot.feishu.inbound import Gate, Rejected, decrypt
from tests.fakes.feishu_events import ENCRYPT_KEY, VERIFICATION_TOKEN, FeishuEvents, encrypt

NOW = 1_780_000_000.0


def _gate(**overrides: object) -> Gate:
    settings: dict[str, object] = {
        "encrypt_key": ENCRYPT_KEY,
        "verification_token": VERIFICATION_TOKEN,
        "clock": lambda: NOW,
    }
    settings.update(overrides)
    return Gate(**settings)  # type: ignore[arg-type]


def _driver() -> FeishuEvents:
    return FeishuEvents("http://unused", clock=lambda: NOW)


def test_decrypts_what_feishu_encrypts() -> None:
    plain = json.dumps({"问题": "退费怎么算？"}).encode()
    assert decrypt(encrypt(plain), ENCRYPT_KEY) == plain


def test_a_signed_event_is_opened() -> None:
    driver = _driver()
    event = {"schema": "2.0", "header": {"token": VERIFICATION_TOKEN, "event_id": "e1"}}
    body, headers = driver.envelope(event)
    assert _gate().open(body, headers) == event


def test_the_url_check_is_opened_unsigned() -> None:
    body, _ = _driver().envelope(_driver().url_verification("c-1"))
    assert _gate().open(body, {})["challenge"] == "c-1"


def test_an_unsigned_event_is_rejected() -> None:
    body, _ = _driver().envelope({"schema": "2.0", "header": {"token": VERIFICATION_TOKEN}})
    with pytest.raises(Rejected, match="unsigned"):
        _gate().open(body, {})


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda body, headers: (body.replace(b'"}', b'x"}'), headers), "bad signature"),
        (lambda body, headers: (body, {**headers, "X-Lark-Signature": "0" * 64}), "bad signature"),
        (lambda body, headers: (body, {**headers, "X-Lark-Request-Nonce": "n"}), "bad signature"),
        (lambda body, headers: (body, {**headers, "X-Lark-Request-Timestamp": "x"}), "timestamp"),
    ],
)
def test_a_changed_request_is_rejected(change: object, reason: str) -> None:
    body, headers = _driver().envelope({"schema": "2.0", "header": {"token": VERIFICATION_TOKEN}})
    body, headers = change(body, headers)  # type: ignore[operator]
    with pytest.raises(Rejected, match=reason):
        _gate().open(body, headers)


@pytest.mark.parametrize("age", [-301, 301, 3600])
def test_a_stale_or_future_timestamp_is_rejected(age: float) -> None:
    payload = {"schema": "2.0", "header": {"token": VERIFICATION_TOKEN}}
    body, headers = _driver().envelope(payload, timestamp=NOW - age)
    with pytest.raises(Rejected, match="from now"):
        _gate().open(body, headers)


def test_a_timestamp_within_five_minutes_is_accepted() -> None:
    payload = {"schema": "2.0", "header": {"token": VERIFICATION_TOKEN}}
    body, headers = _driver().envelope(payload, timestamp=NOW - 299)
    assert _gate().open(body, headers) == payload


def test_the_wrong_verification_token_is_rejected() -> None:
    body, headers = _driver().envelope({"schema": "2.0", "header": {"token": "someone-else"}})
    with pytest.raises(Rejected, match="verification token"):
        _gate().open(body, headers)


def test_another_encrypt_key_is_rejected_by_its_signature() -> None:
    payload = {"schema": "2.0", "header": {"token": VERIFICATION_TOKEN}}
    body, headers = _driver().envelope(payload, key="another-key")
    with pytest.raises(Rejected, match="bad signature"):
        _gate().open(body, headers)


def test_a_plaintext_body_is_rejected() -> None:
    with pytest.raises(Rejected, match="not encrypted"):
        _gate().open(json.dumps(_driver().url_verification()).encode(), {})


@pytest.mark.parametrize("encrypted", ["not base64!", "AAAA", encrypt(b"x", "another-key")])
def test_garbage_that_does_not_decrypt_is_rejected(encrypted: str) -> None:
    with pytest.raises(Rejected):
        _gate().open(json.dumps({"encrypt": encrypted}).encode(), {})


def test_both_secrets_are_required() -> None:
    with pytest.raises(ValueError, match="Encrypt Key"):
        Gate(encrypt_key="", verification_token="t")
