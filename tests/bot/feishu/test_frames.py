"""The long connection's frames, byte for byte as the official SDK's protobuf writes them.

The expected bytes were produced by ``lark_oapi.ws.pb.pbbp2_pb2.Frame.SerializeToString()``
(lark-oapi 1.7.5) for the same fields; citebot does not depend on that package.
"""

from __future__ import annotations

import pytest

from bot.feishu.frames import CONTROL, DATA, Frame, FrameError

EVENT = bytes.fromhex(
    "08031063180720012a0d0a047479706512056576656e742a100a0a6d6573736167655f696412026d3142077b"
    "2261223a317d"
)
PING = bytes.fromhex("08001000180c20002a0c0a0474797065120470696e67")


def test_a_data_frame_is_written_as_the_sdk_writes_it() -> None:
    frame = Frame(
        seq_id=3,
        log_id=99,
        service=7,
        method=DATA,
        headers=[("type", "event"), ("message_id", "m1")],
        payload=b'{"a":1}',
    )
    assert frame.encode() == EVENT
    assert Frame.decode(EVENT) == frame


def test_a_ping_is_written_as_the_sdk_writes_it() -> None:
    assert Frame(service=12, method=CONTROL, headers=[("type", "ping")]).encode() == PING
    assert Frame.decode(PING).header("type") == "ping"


def test_unknown_fields_are_skipped_and_garbage_is_refused() -> None:
    extra = EVENT + bytes([0x50, 0x01])  # field 10, varint 1: a newer server's addition
    assert Frame.decode(extra).payload == b'{"a":1}'
    with pytest.raises(FrameError):
        Frame.decode(EVENT[:-3])
