"""Is this request from Feishu? Decrypt, verify the signature and the token, or reject it.

With an Encrypt Key set (required here in HTTP mode), Feishu posts ``{"encrypt": "<base64>"}``:
base64 of a 16-byte IV followed by AES-256-CBC ciphertext (PKCS#7), the key being the SHA-256 of
the Encrypt Key. Every event and card callback is signed:
``X-Lark-Signature = hex(sha256(timestamp + nonce + encrypt_key + raw body))`` with the
``X-Lark-Request-Timestamp`` / ``-Nonce`` headers. The URL check (``url_verification``) is the
one request sent without a signature; it is accepted unsigned only to echo its challenge.

Order: signature and freshness first (cheap, and nothing from an unsigned body is decrypted or
parsed further), then decryption, then the Verification Token (``header.token`` in schema 2.0,
``token`` at the top level in the URL check and older callbacks). Anything wrong raises
:class:`Rejected` naming the reason for the log; the caller answers 4xx and does nothing else.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from rag import CitebotError

MAX_SKEW_SECONDS = 300
"""A signed request more than 5 minutes from our clock is a replay (or a broken clock)."""

SIGNATURE = "X-Lark-Signature"
TIMESTAMP = "X-Lark-Request-Timestamp"
NONCE = "X-Lark-Request-Nonce"


class Rejected(CitebotError):
    """Not a genuine, fresh Feishu request; ``str(error)`` is the reason (for the log)."""


def decrypt(encrypted: str, encrypt_key: str) -> bytes:
    """The plaintext of an ``encrypt`` field; :class:`Rejected` when it does not decrypt."""
    try:
        raw = base64.b64decode(encrypted, validate=True)
    except (binascii.Error, ValueError) as error:
        msg = "encrypt is not base64"
        raise Rejected(msg) from error
    if len(raw) < 32 or len(raw) % 16:
        msg = f"encrypt has {len(raw)} bytes, not an IV and whole AES blocks"
        raise Rejected(msg)
    key = hashlib.sha256(encrypt_key.encode()).digest()
    decryptor = Cipher(algorithms.AES(key), modes.CBC(raw[:16])).decryptor()
    padded = decryptor.update(raw[16:]) + decryptor.finalize()
    unpadder = padding.PKCS7(128).unpadder()
    try:
        return unpadder.update(padded) + unpadder.finalize()
    except ValueError as error:
        # Bad padding: the wrong key, or not Feishu's ciphertext at all.
        msg = "encrypt does not decrypt with FEISHU_ENCRYPT_KEY"
        raise Rejected(msg) from error


def signature(timestamp: str, nonce: str, encrypt_key: str, body: bytes) -> str:
    return hashlib.sha256((timestamp + nonce + encrypt_key).encode() + body).hexdigest()


def _json_object(data: bytes, what: str) -> dict[str, Any]:
    try:
        value = json.loads(data)
    except (UnicodeDecodeError, ValueError) as error:
        msg = f"{what} is not JSON"
        raise Rejected(msg) from error
    if not isinstance(value, dict):
        msg = f"{what} is not a JSON object"
        raise Rejected(msg)
    return value


def token_of(payload: Mapping[str, Any]) -> str:
    header = payload.get("header")
    if isinstance(header, dict) and "token" in header:
        return str(header["token"])
    return str(payload.get("token", ""))


@dataclass(frozen=True, slots=True)
class Gate:
    encrypt_key: str
    verification_token: str
    max_skew_seconds: float = MAX_SKEW_SECONDS
    clock: Callable[[], float] = field(default=time.time)

    def __post_init__(self) -> None:
        if not self.encrypt_key or not self.verification_token:
            msg = "the Encrypt Key and the Verification Token are both required"
            raise ValueError(msg)

    def open(self, body: bytes, headers: Mapping[str, str]) -> dict[str, Any]:
        """The decrypted, verified payload of one request."""
        signed = headers.get(SIGNATURE)
        if signed is not None:
            self._check_signature(body, headers, signed)
        envelope = _json_object(body, "the body")
        encrypted = envelope.get("encrypt")
        if not isinstance(encrypted, str):
            msg = "the body is not encrypted (set an Encrypt Key in 事件与回调)"
            raise Rejected(msg)
        payload = _json_object(decrypt(encrypted, self.encrypt_key), "the decrypted body")
        if signed is None and payload.get("type") != "url_verification":
            msg = "unsigned request"
            raise Rejected(msg)
        if not hmac.compare_digest(token_of(payload).encode(), self.verification_token.encode()):
            msg = "wrong verification token"
            raise Rejected(msg)
        return payload

    def _check_signature(self, body: bytes, headers: Mapping[str, str], signed: str) -> None:
        stamp = headers.get(TIMESTAMP, "")
        nonce = headers.get(NONCE, "")
        try:
            skew = abs(self.clock() - float(stamp))
        except ValueError as error:
            msg = "missing or malformed request timestamp"
            raise Rejected(msg) from error
        if not skew <= self.max_skew_seconds:
            msg = f"request timestamp {stamp} is {skew:.0f} s from now"
            raise Rejected(msg)
        expected = signature(stamp, nonce, self.encrypt_key, body)
        if not hmac.compare_digest(expected.encode(), signed.strip().lower().encode()):
            msg = "bad signature"
            raise Rejected(msg)
