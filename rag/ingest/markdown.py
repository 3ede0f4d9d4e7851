"""Markdown as documentation sites write it -> the text people read, and its metadata.

Real documentation is not plain CommonMark. Static-site generators add a metadata block at the
top (YAML between ``---`` or TOML between ``+++``), template tags (Liquid/Nunjucks
``{% alert %}``, ``[text]({% page "/x/" %})``; Hugo ``{{< note >}}``), MDX (``import Tabs from
'@theme/Tabs';``, ``<Tabs>``/``<TabItem>``), admonition fences (``:::note``), licence headers in
HTML comments and heading anchors (``## Setup {#setup}``). Left in, they become passages a
question matches ("limitations under the License" as a heading path) and quotes nobody can read.

:func:`read_markdown` returns the metadata (title, url, and the description, keywords and
aliases that say what the page is about, indexed with it) and the body with all of that
removed — everywhere except inside fenced code, which is kept byte for byte so commands and
configuration are quoted exactly. Links keep their text and drop their target (a 90-character
Google Docs address is noise to search and to a reader), also when their text wraps onto the
next line; an address written as the link's text, such as an email, stays. Backslash escapes
read as the character they escape (``\\*For vouchers`` is "*For vouchers"), except in code
spans and for a table cell's ``\\|``.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from typing import Any

import yaml

_YAML = re.compile(r"\A---[ \t]*\n(.*?\n)?(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_TOML = re.compile(r"\A\+\+\+[ \t]*\n(.*?\n)?\+\+\+[ \t]*(?:\n|\Z)", re.DOTALL)
_KEY_LINE = re.compile(r"^[A-Za-z_][\w-]*[ \t]*[:=]")

ABOUT_KEYS = ("description", "summary", "subtitle", "keywords", "tags", "aliases")
"""Front-matter fields that say what a page is about: searchable, never quoted as body text."""

_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_HEAD = re.compile(r"<head>.*?</head>", re.DOTALL | re.IGNORECASE)
_MDX_LINE = re.compile(
    r"^(?:import\s+.+\s+from\s+['\"].+['\"]|import\s+['\"].+['\"]|export\s+.+);?\s*$"
)
_TAG_ONLY_LINE = re.compile(r"^\s*(?:</?[A-Za-z][\w.-]*(?:\s[^<>]*)?/?>\s*)+$")
_TEMPLATE_ONLY_LINE = re.compile(r"^\s*(?:\{%-?.*?-?%\}|\{\{[<%].*?[>%]\}\}\s*)+\s*$")
_ADMONITION = re.compile(r"^\s*:::+\s*(?P<kind>[A-Za-z]*)\s*(?P<title>.*?)\s*$")
_LINK_TEXT = r"\\?\[((?:[^\[\]\n]|\[[^\[\]\n]*\]|\n(?![ \t]*\n))*)\]"
"""A link's text in brackets, which may hold a bracketed part ("[Guide [DOCX]](…)") and wrap
over single line breaks. An escaped opening bracket followed by ``](target)`` is a link its
author escaped by mistake: the page would show the target, a reader wants the text."""
_TEMPLATE_LINK = re.compile(rf"{_LINK_TEXT}\(\s*\{{%.*?%\}}\s*\)")
_TEMPLATE_ARG = re.compile(r"\{%-?\s*[\w-]+\s+[\"']([^\"']*)[\"'][^%]*-?%\}")
_TEMPLATE = re.compile(r"\{%.*?%\}|\{\{[<%].*?[>%]\}\}|\{\{.*?\}\}")
_IMAGE = re.compile(rf"!{_LINK_TEXT}\([^)\n]*\)")
_LINK = re.compile(rf"(?!\\?\[\]){_LINK_TEXT}\((?:[^()\n]|\([^()\n]*\))*\)")
_INLINE_TAG = re.compile(r"</?(?:a|span|strong|em|b|i|u|code|sup|sub|small|font|kbd)\b[^<>]*>")
_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_AUTOLINK = re.compile(r"<(?:mailto:)?([^<>\s]+@[^<>\s]+|https?://[^<>\s]+)>")
_HEADING_ANCHOR = re.compile(r"(?m)^([ \t]*#[^\n]*?)[ \t]*\{#[^}\s]*\}[ \t]*$")
_ESCAPED = re.compile(
    r"(?P<tick>`+)(?:[^\n]|\n(?![ \t]*\n))*?(?P=tick)|\\(?P<escaped>[!-/:-@\[-`{}~])"
)
"""A code span (kept whole), or a backslash escape of ASCII punctuation (``\\|`` stays: in a
table row it keeps a cell's pipe from splitting the cell)."""


def read_markdown(text: str) -> tuple[dict[str, str], str]:
    """``(metadata, body)``: metadata values are strings (lists joined with ``, ``)."""
    meta, body = split_front_matter(text)
    return meta, clean_body(body)


def split_front_matter(text: str) -> tuple[dict[str, str], str]:
    """YAML (``---``) or TOML (``+++``) metadata at the very top, and the rest of the text.

    A horizontal rule that merely opens the text is not front matter: the block must start with
    a ``key:`` (or ``key =``) line and parse as a mapping."""
    for pattern, parse in ((_YAML, _yaml), (_TOML, _toml)):
        match = pattern.match(text)
        if match is None:
            continue
        block = match.group(1) or ""
        first = next((line for line in block.splitlines() if line.strip()), "")
        if first and not _KEY_LINE.match(first):
            return {}, text
        fields = parse(block)
        if fields is None:
            return {}, text
        return _flat(fields), text[match.end() :]
    return {}, text


def _yaml(block: str) -> dict[str, Any] | None:
    try:
        fields = yaml.safe_load(block) if block.strip() else {}
    except yaml.YAMLError:
        return _key_lines(block)  # hand-written metadata that YAML rejects: read key: value lines
    return fields if isinstance(fields, dict) else None


def _toml(block: str) -> dict[str, Any] | None:
    try:
        return tomllib.loads(block)
    except tomllib.TOMLDecodeError:
        return None


def _key_lines(block: str) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for line in block.splitlines():
        key, sep, value = line.partition(":")
        if sep and _KEY_LINE.match(line):
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            fields[key.strip()] = value
    return fields


def _flat(fields: dict[str, Any]) -> dict[str, str]:
    meta: dict[str, str] = {}
    for key, value in fields.items():
        text = _as_text(value)
        if text:
            meta[str(key).lower()] = text
    return meta


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, bool):  # ``archived: true``, Hugo's ``draft: true``
        return "true" if value else ""
    if value is None:
        return ""
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list | tuple):
        return ", ".join(part for part in (_as_text(v) for v in value) if part)
    if isinstance(value, dict):
        return _as_text(value.get("text") or value.get("title") or "")
    return str(value).strip()


def about(meta: dict[str, str]) -> str:
    """What the front matter says the page is about (description, keywords, aliases…)."""
    return "\n".join(meta[key] for key in ABOUT_KEYS if meta.get(key))


# --- the body ---------------------------------------------------------------------------------


def clean_body(text: str) -> str:
    """The body without comments, template and MDX markup; fenced code untouched."""
    text = _HEAD.sub("", _COMMENT.sub(_blank_lines, text))
    return "\n".join(_cleaned_lines(text.split("\n")))


def _blank_lines(match: re.Match[str]) -> str:
    return "\n" * match.group().count("\n")


def _cleaned_lines(lines: Iterable[str]) -> Iterable[str]:
    """Fenced code as it is; the prose between fences cleaned a run at a time, so a link whose
    text wraps onto the next line still loses its target."""
    fence: str | None = None
    prose: list[str] = []
    for line in lines:
        opened = _FENCE.match(line)
        if fence is not None:
            yield line
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            continue
        if opened:
            yield from _clean_prose(prose)
            prose = []
            fence = opened.group(1)
            yield line
            continue
        prose.append(_markup_only(line))
    yield from _clean_prose(prose)


def _markup_only(line: str) -> str:
    """Empty when the line is markup only (a tag, an import, an admonition's fence without a
    title), so the paragraphs on either side stay apart; an admonition's title alone."""
    if _MDX_LINE.match(line) or _TAG_ONLY_LINE.match(line) or _TEMPLATE_ONLY_LINE.match(line):
        return ""
    admonition = _ADMONITION.match(line)
    return admonition.group("title").strip() if admonition else line


def _clean_prose(lines: list[str]) -> list[str]:
    """Lines of prose as read: links and images reduced to their text (which may wrap over a
    line break), template tags, inline HTML and heading anchors gone, backslash escapes
    resolved."""
    if not lines:
        return []
    text = "\n".join(lines)
    text = _TEMPLATE_LINK.sub(r"\1", text)
    text = _TEMPLATE_ARG.sub(r"\1", text)
    text = _TEMPLATE.sub("", text)
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _BREAK.sub(" ", text)
    text = _AUTOLINK.sub(r"\1", text)
    text = _INLINE_TAG.sub("", text)
    text = _HEADING_ANCHOR.sub(r"\1", text)
    return _ESCAPED.sub(_unescaped, text).split("\n")


def _unescaped(match: re.Match[str]) -> str:
    """``\\*`` reads ``*`` (CommonMark's backslash escape); a code span keeps its backslashes."""
    return match.group("escaped") or match.group()
