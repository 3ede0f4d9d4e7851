"""The keys and identifiers of a code block in an answer: they must come from what it cites.

Asked "网关想同时监听 9080 和 9081 两个 http 端口，cfg 咋写", a model answers with a block of
YAML. The error that matters there is a key the documentation doesn't have
(``listen_ports_extra:`` for ``node_listen:``), and the word rules don't see it: a block is
neither English nor Chinese prose, and lower-case keys are not names. So each key (a word
before ``:`` or ``=``) and each snake_case or dotted identifier of the block must be in the
sources covering it or in the question; its numbers are the number rule's, as anywhere.
"""

from __future__ import annotations

import re

_KEY = re.compile(r"(?<![\w.-])[\"']?([A-Za-z_][\w.-]*)[\"']?\s*(?::(?!//)|=)")
"""``node_listen:``, ``"host": …``, ``port = 9080``, ``--log-level=`` — not ``http://``."""

_IDENTIFIER = re.compile(r"(?<![\w.-])[A-Za-z][A-Za-z0-9]*(?:[_.][A-Za-z0-9]+)+")
"""``error_log_level``, ``core.log.info``, ``config.yaml``."""


def identifiers(code: str) -> list[str]:
    """The block's keys and identifiers, each once, in order of first use."""
    keys = [match.group(1).rstrip(".-") for match in _KEY.finditer(code)]
    return list(dict.fromkeys([*keys, *_IDENTIFIER.findall(code)]))
