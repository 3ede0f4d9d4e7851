"""The long connection's frames (``pbbp2.Frame``), encoded and decoded by hand.

Feishu's long connection sends protobuf frames over a WebSocket. The message is small and fixed,
so ~70 lines here replace a protobuf runtime (the official SDK vendors one)::

    Frame  1 SeqID uint64 · 2 LogID uint64 · 3 service int32 · 4 method int32 (0 control, 1 data)
           5 headers repeated Header{1 key string, 2 value string}
           6 payload_encoding string · 7 payload_type string · 8 payload bytes · 9 LogIDNew string
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rag import CitebotError

CONTROL = 0
DATA = 1


class FrameError(CitebotError, ValueError):
    """Bytes that are not a frame."""


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative int32 are sent as 10-byte two's complement
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _read_varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(data) or shift > 63:
            msg = "truncated varint"
            raise FrameError(msg)
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, at


def _fields(data: bytes) -> list[tuple[int, int | bytes]]:
    out: list[tuple[int, int | bytes]] = []
    at = 0
    while at < len(data):
        key, at = _read_varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = _read_varint(data, at)
            out.append((number, value))
        elif wire == 2:
            size, at = _read_varint(data, at)
            if at + size > len(data):
                msg = "truncated field"
                raise FrameError(msg)
            out.append((number, data[at : at + size]))
            at += size
        elif wire in (1, 5):
            at += 8 if wire == 1 else 4  # fixed-width fields: none expected, skipped
        else:
            msg = f"unknown wire type {wire}"
            raise FrameError(msg)
    return out


def _bytes_field(number: int, value: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(value)) + value


@dataclass(slots=True)
class Frame:
    seq_id: int = 0
    log_id: int = 0
    service: int = 0
    method: int = CONTROL
    headers: list[tuple[str, str]] = field(default_factory=list)
    payload_encoding: str = ""
    payload_type: str = ""
    payload: bytes = b""
    log_id_new: str = ""

    def header(self, key: str, default: str = "") -> str:
        return next((value for name, value in self.headers if name == key), default)

    def encode(self) -> bytes:
        out = b"".join(
            _varint(number << 3) + _varint(value)
            for number, value in ((1, self.seq_id), (2, self.log_id), (3, self.service))
        )
        out += _varint(4 << 3) + _varint(self.method)
        for key, value in self.headers:
            header = _bytes_field(1, key.encode()) + _bytes_field(2, value.encode())
            out += _bytes_field(5, header)
        for number, text in ((6, self.payload_encoding), (7, self.payload_type)):
            if text:
                out += _bytes_field(number, text.encode())
        if self.payload:
            out += _bytes_field(8, self.payload)
        if self.log_id_new:
            out += _bytes_field(9, self.log_id_new.encode())
        return out

    @classmethod
    def decode(cls, data: bytes) -> Frame:
        frame = cls()
        try:
            for number, value in _fields(data):
                if isinstance(value, int):
                    if number in (1, 2, 3, 4):
                        setattr(frame, ("seq_id", "log_id", "service", "method")[number - 1], value)
                elif number == 5:
                    parts = dict(_fields(value))
                    key, text = parts.get(1, b""), parts.get(2, b"")
                    if isinstance(key, bytes) and isinstance(text, bytes):
                        frame.headers.append((key.decode(), text.decode()))
                elif number == 8:
                    frame.payload = value
                elif number in (6, 7, 9):
                    name = {6: "payload_encoding", 7: "payload_type", 9: "log_id_new"}[number]
                    setattr(frame, name, value.decode())
        except UnicodeDecodeError as error:
            msg = "a text field is not UTF-8"
            raise FrameError(msg) from error
        return frame
