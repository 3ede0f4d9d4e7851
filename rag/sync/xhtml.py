"""Confluence storage format (XHTML with ``ac:``/``ri:`` elements) -> a small element tree.

The storage format is not well-formed XML on its own (its namespaces are never declared and it
uses HTML entities such as ``&nbsp;``), so it is read with the standard library's lenient HTML
parser. ``<![CDATA[...]]>`` (the body of a code macro) is turned into escaped text first: how
``html.parser`` treats CDATA differs between Python versions.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

_CDATA = re.compile(r"<!\[CDATA\[(.*?)\]\]>", re.DOTALL)
_VOID = frozenset({"br", "hr", "img", "col", "input", "meta", "link", "wbr"})


@dataclass
class Element:
    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[Element | str] = field(default_factory=list)

    def find(self, tag: str) -> Element | None:
        """The first child element named ``tag``."""
        return next((c for c in self.children if isinstance(c, Element) and c.tag == tag), None)

    def elements(self, tag: str | None = None) -> list[Element]:
        return [c for c in self.children if isinstance(c, Element) and tag in (None, c.tag)]

    def text(self) -> str:
        """All the text inside, as it is (no whitespace folding)."""
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("body")
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {name: value or "" for name, value in attrs})
        self.stack[-1].children.append(element)
        if tag not in _VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Element(tag, {name: value or "" for name, value in attrs}))

    def handle_endtag(self, tag: str) -> None:
        # Close up to the matching open element; a stray end tag closes nothing.
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse_storage(text: str) -> Element:
    """The ``<body>`` holding the storage document's top-level elements."""
    builder = _TreeBuilder()
    builder.feed(_CDATA.sub(lambda match: html.escape(match.group(1), quote=False), text))
    builder.close()
    return builder.root
