"""Feishu's side of ``POST /feishu/events``: encrypts, signs and posts like the open platform.

Encryption and signing are written here from Feishu's description, independently of
bot/feishu/inbound.py, so a mistake there fails the tests instead of agreeing with itself:
AES-256-CBC with key = SHA-256(Encrypt Key), a random 16-byte IV in front, PKCS#7, base64;
``X-Lark-Signature`` = hex SHA-256 of timestamp + nonce + Encrypt Key + raw body.

Payload builders make schema 2.0 ``im.message.receive_v1`` events and ``card.action.trigger``
callbacks. ``post`` sends one delivery; a retry is the same payload posted again (Feishu re-signs
each attempt), a redelivery is the same message under a new ``event_id``::

    event = driver.message(message, mentions=[driver.bot_mention()])
    await driver.post(event)            # first delivery
    await driver.post(event)            # Feishu's retry: same event_id
    await driver.post(driver.redelivered(event))
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from tests.fakes.feishu_api import APP_ID, BOT_NAME, BOT_OPEN_ID, Message

ENCRYPT_KEY = "citebot-test-encrypt-key"
VERIFICATION_TOKEN = "citebot-test-verification-token"
TENANT = "tenant-citebot"

Json = dict[str, Any]


def encrypt(plaintext: bytes, key: str = ENCRYPT_KEY) -> str:
    padder = padding.PKCS7(128).padder()
    padded = padder.update(plaintext) + padder.finalize()
    iv = os.urandom(16)
    cipher = Cipher(algorithms.AES(hashlib.sha256(key.encode()).digest()), modes.CBC(iv))
    encryptor = cipher.encryptor()
    return base64.b64encode(iv + encryptor.update(padded) + encryptor.finalize()).decode()


def sign(timestamp: str, nonce: str, body: bytes, key: str = ENCRYPT_KEY) -> str:
    return hashlib.sha256((timestamp + nonce + key).encode() + body).hexdigest()


@dataclass(frozen=True, slots=True)
class Delivery:
    status: int
    body: Json


@dataclass
class FeishuEvents:
    url: str
    """The app's ``POST /feishu/events`` URL."""
    encrypt_key: str = ENCRYPT_KEY
    token: str = VERIFICATION_TOKEN
    clock: Callable[[], float] = time.time
    deliveries: list[Delivery] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._ids = itertools.count(1)

    # -- sending ---------------------------------------------------------------------------

    def envelope(
        self, payload: Json, *, timestamp: float | None = None, key: str | None = None
    ) -> tuple[bytes, dict[str, str]]:
        """The body and headers Feishu would send for ``payload``."""
        key = self.encrypt_key if key is None else key
        body = json.dumps({"encrypt": encrypt(json.dumps(payload).encode(), key)}).encode()
        stamp = str(int(self.clock() if timestamp is None else timestamp))
        nonce = f"nonce-{next(self._ids)}"
        headers = {
            "Content-Type": "application/json; charset=utf-8",
            "X-Lark-Request-Timestamp": stamp,
            "X-Lark-Request-Nonce": nonce,
            "X-Lark-Signature": sign(stamp, nonce, body, key),
        }
        return body, headers

    async def post(
        self,
        payload: Json,
        *,
        timestamp: float | None = None,
        key: str | None = None,
        signed: bool = True,
        tamper: Callable[[bytes], bytes] | None = None,
    ) -> Delivery:
        body, headers = self.envelope(payload, timestamp=timestamp, key=key)
        if not signed:
            for name in ("X-Lark-Request-Timestamp", "X-Lark-Request-Nonce", "X-Lark-Signature"):
                headers.pop(name)
        if tamper is not None:
            body = tamper(body)
        async with (
            aiohttp.ClientSession() as session,
            session.post(self.url, data=body, headers=headers) as response,
        ):
            try:
                answer = await response.json(content_type=None)
            except ValueError:
                answer = {}
            delivery = Delivery(response.status, answer if isinstance(answer, dict) else {})
        self.deliveries.append(delivery)
        return delivery

    # -- payloads --------------------------------------------------------------------------

    def _header(self, event_type: str) -> Json:
        return {
            "event_id": f"ev_{next(self._ids):08d}_{os.urandom(4).hex()}",
            "token": self.token,
            "create_time": str(int(self.clock() * 1000)),
            "event_type": event_type,
            "tenant_key": TENANT,
            "app_id": APP_ID,
        }

    def url_verification(self, challenge: str = "challenge-1") -> Json:
        return {"challenge": challenge, "token": self.token, "type": "url_verification"}

    @staticmethod
    def bot_mention(key: str = "@_user_1") -> Json:
        return {"key": key, "id": {"open_id": BOT_OPEN_ID}, "name": BOT_NAME, "tenant_key": TENANT}

    @staticmethod
    def person_mention(key: str, open_id: str, name: str) -> Json:
        return {"key": key, "id": {"open_id": open_id}, "name": name, "tenant_key": TENANT}

    def message(
        self, message: Message, *, chat_type: str = "group", mentions: list[Json] | None = None
    ) -> Json:
        """``im.message.receive_v1`` for a message the fake API already holds."""
        body: Json = {
            "message_id": message.message_id,
            "root_id": message.root_id,
            "parent_id": message.parent_id,
            "create_time": str(int(self.clock() * 1000)),
            "chat_id": message.chat_id,
            "chat_type": chat_type,
            "message_type": message.msg_type,
            "content": json.dumps(message.content, ensure_ascii=False),
            "mentions": mentions or [],
        }
        sender = {
            "sender_id": {"open_id": message.sender},
            "sender_type": "user",
            "tenant_key": TENANT,
        }
        return {
            "schema": "2.0",
            "header": self._header("im.message.receive_v1"),
            "event": {"sender": sender, "message": body},
        }

    def redelivered(self, event: Json) -> Json:
        """The same message as a new event (a new ``event_id``), as Feishu sometimes sends."""
        return {**event, "header": {**event["header"], "event_id": self._header("x")["event_id"]}}

    def card_action(
        self,
        *,
        operator: str,
        message_id: str,
        chat_id: str,
        value: Json,
        form_value: Json | None = None,
    ) -> Json:
        action: Json = {"tag": "button", "value": value}
        if form_value is not None:
            action["form_value"] = form_value
        event = {
            "operator": {"open_id": operator, "tenant_key": TENANT},
            "token": f"c-{next(self._ids)}",
            "action": action,
            "host": "im_message",
            "context": {"open_message_id": message_id, "open_chat_id": chat_id},
        }
        return {"schema": "2.0", "header": self._header("card.action.trigger"), "event": event}
