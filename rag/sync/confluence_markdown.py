"""Confluence storage format -> Markdown that keeps what answers are made of.

Kept: headings, paragraphs, bold/italic/code/strike, links (``<a>`` and ``ac:link``), lists
(nested, and task lists), tables (header row first, a cell's paragraphs joined by ``;``),
code (``<pre>`` and the ``code``/``noformat`` macros, with the language), quotes, rules, and
the text of macros that hold content: ``panel``, ``info``/``note``/``tip``/``warning`` (as a
quote with their kind), ``expand`` and ``details`` (their title, then the body), layouts and
sections. Dropped: images, emoticons, and macros that only navigate or embed (``toc``,
``children``, ``pagetree``, ``attachments``, ``jira`` …, :data:`DROPPED_MACROS`). A macro
this module does not know is never dropped silently: its body, or else its name and
parameters, stay as text.
"""

from __future__ import annotations

from collections.abc import Callable

from rag.sync.markdown import fence, fold, heading, item, join, quote, table
from rag.sync.xhtml import Element, parse_storage

DROPPED_MACROS = frozenset(
    {
        "toc", "toc-zone", "children", "pagetree", "pagetreesearch", "recently-updated",
        "attachments", "anchor", "contentbylabel", "content-report-table", "livesearch",
        "gallery", "profile", "profile-picture", "view-file", "viewfile", "multimedia",
        "widget", "jira", "jiraissues", "create-from-template", "blog-posts", "space-details",
    }
)  # fmt: skip
"""Navigation and embeds: nothing a question could be answered from."""
CALLOUTS = {"info": "Info", "note": "Note", "tip": "Tip", "warning": "Warning"}
CODE_MACROS = frozenset({"code", "noformat"})
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_BLOCKS = frozenset(
    {"p", "ul", "ol", "table", "pre", "blockquote", "hr", "div", "ac:task-list",
     "ac:layout", "ac:layout-section", "ac:layout-cell", *_HEADINGS}
)  # fmt: skip
_EMPHASIS = {"strong": "**", "b": "**", "em": "*", "i": "*", "s": "~~", "del": "~~"}


def storage_to_markdown(storage: str) -> str:
    return join(_blocks(parse_storage(storage).children))


# --- blocks ---------------------------------------------------------------------------------


def _blocks(children: list[Element | str]) -> list[str]:
    out: list[str] = []
    run: list[str] = []
    for child in children:
        if isinstance(child, Element) and _is_block(child):
            out.append(fold("".join(run)).strip())
            run = []
            out.extend(_block(child))
        else:
            run.append(_inline(child))
    out.append(fold("".join(run)).strip())
    return [block for block in out if block]


def _is_block(element: Element) -> bool:
    if element.tag == "ac:structured-macro":
        return _has_body(element) or _macro(element) in DROPPED_MACROS
    return element.tag in _BLOCKS


def _has_body(macro: Element) -> bool:
    return (
        macro.find("ac:rich-text-body") is not None or macro.find("ac:plain-text-body") is not None
    )


def _block(element: Element) -> list[str]:
    tag = element.tag
    if tag in _HEADINGS:
        text = fold(_inlines(element.children)).strip()
        return [heading(_HEADINGS[tag], text)] if text else []
    handler = _BLOCK_HANDLERS.get(tag)
    if handler is not None:
        return handler(element)
    return _blocks(element.children)  # div, layouts: their content


def _list(element: Element) -> list[str]:
    ordered = element.tag == "ol"
    items = []
    for number, li in enumerate(element.elements("li"), start=1):
        marker = f"{number}." if ordered else "-"
        items.append(item(marker, "\n".join(_blocks(li.children))))
    return ["\n".join(items)] if items else []


def _tasks(element: Element) -> list[str]:
    items = []
    for task in element.elements("ac:task"):
        status = task.find("ac:task-status")
        done = status is not None and status.text().strip() == "complete"
        body = task.find("ac:task-body")
        text = "\n".join(_blocks(body.children)) if body is not None else ""
        items.append(item(f"- [{'x' if done else ' '}]", text))
    return ["\n".join(items)] if items else []


def _table(element: Element) -> list[str]:
    rows = [
        [join(_blocks(cell.children)) for cell in row.elements() if cell.tag in {"td", "th"}]
        for row in _rows(element)
    ]
    rendered = table(rows)
    return [rendered] if rendered else []


def _rows(element: Element) -> list[Element]:
    rows: list[Element] = []
    for child in element.elements():
        if child.tag == "tr":
            rows.append(child)
        elif child.tag in {"thead", "tbody", "tfoot"}:
            rows.extend(child.elements("tr"))
    return rows


def _pre(element: Element) -> list[str]:
    return [fence(element.text())]


def _blockquote(element: Element) -> list[str]:
    return [quote(join(_blocks(element.children)))]


def _rule(element: Element) -> list[str]:
    return ["---"]


# --- macros --------------------------------------------------------------------------------


def _macro(element: Element) -> str:
    return element.attrs.get("ac:name", "").strip().lower()


def _parameters(macro: Element) -> dict[str, str]:
    return {
        parameter.attrs.get("ac:name", ""): fold(parameter.text()).strip()
        for parameter in macro.elements("ac:parameter")
    }


def _structured_macro(element: Element) -> list[str]:
    name, parameters = _macro(element), _parameters(element)
    if name in DROPPED_MACROS:
        return []
    if name in CODE_MACROS:
        body = element.find("ac:plain-text-body")
        code = body.text() if body is not None else ""
        return [fence(code, parameters.get("language", ""))]
    rich = element.find("ac:rich-text-body")
    inner = _blocks(rich.children) if rich is not None else []
    plain = element.find("ac:plain-text-body")
    if plain is not None and plain.text().strip():
        inner.append(plain.text().strip())
    title = parameters.get("title", "")
    if name in CALLOUTS:
        label = f"**{CALLOUTS[name]}{': ' + title if title else ''}**"
        return [quote(join([label, *inner]))]
    if title:
        inner.insert(0, f"**{title}**")
    return inner or [_named(name, parameters)]


def _named(name: str, parameters: dict[str, str]) -> str:
    """A macro with no body we know nothing about, kept as its name and parameters."""
    shown = ", ".join(f"{key}={value}" if key else value for key, value in parameters.items())
    return f"[{name}{': ' + shown if shown else ''}]"


_BLOCK_HANDLERS: dict[str, Callable[[Element], list[str]]] = {
    "ul": _list,
    "ol": _list,
    "ac:task-list": _tasks,
    "table": _table,
    "pre": _pre,
    "blockquote": _blockquote,
    "hr": _rule,
    "ac:structured-macro": _structured_macro,
}


# --- inline --------------------------------------------------------------------------------


def _inlines(children: list[Element | str]) -> str:
    return "".join(_inline(child) for child in children)


def _inline(node: Element | str) -> str:
    if isinstance(node, str):
        return node
    tag = node.tag
    if tag in _EMPHASIS:
        return _wrap(_inlines(node.children), _EMPHASIS[tag])
    if tag == "code":
        text = fold(node.text()).strip()
        return f"`{text}`" if text else ""
    handler = _INLINE_HANDLERS.get(tag)
    if handler is not None:
        return handler(node)
    if tag in _BLOCKS or tag in _HEADINGS:
        return " " + join(_block(node)) + " "
    return _inlines(node.children)  # span, u, sub, sup, time, inline comment markers…


def _wrap(text: str, mark: str) -> str:
    """``**x**`` around the text, the spaces around it left outside (Markdown needs that)."""
    core = text.strip()
    if not core:
        return text
    start = text[: len(text) - len(text.lstrip())]
    end = text[len(text.rstrip()) :]
    return f"{start}{mark}{core}{mark}{end}"


def _anchor(node: Element) -> str:
    text = fold(_inlines(node.children)).strip()
    href = node.attrs.get("href", "")
    if not href or href.startswith("#"):
        return text
    return f"[{text or href}]({href})"


def _ac_link(node: Element) -> str:
    """A link to a page, attachment or URL: its visible text (the target's title if none)."""
    body = node.find("ac:link-body") or node.find("ac:plain-text-link-body")
    text = fold(body.text()).strip() if body is not None else ""
    target = next(iter(node.elements()), None)
    if target is not None and target.tag == "ri:url":
        url = target.attrs.get("ri:value", "")
        return f"[{text or url}]({url})" if url else text
    if not text and target is not None:
        text = target.attrs.get("ri:content-title") or target.attrs.get("ri:filename", "")
    return text


def _inline_macro(node: Element) -> str:
    name, parameters = _macro(node), _parameters(node)
    if name in DROPPED_MACROS:
        return ""
    if name == "status":
        return f"[{parameters.get('title', '')}]" if parameters.get("title") else ""
    return _named(name, parameters)


def _emoticon(node: Element) -> str:
    return node.attrs.get("ac:emoji-fallback", "")


def _image(node: Element) -> str:
    return node.attrs.get("ac:alt", "")


def _nothing(node: Element) -> str:
    return ""


_INLINE_HANDLERS: dict[str, Callable[[Element], str]] = {
    "a": _anchor,
    "ac:link": _ac_link,
    "ac:structured-macro": _inline_macro,
    "ac:emoticon": _emoticon,
    "ac:image": _image,
    "ac:placeholder": _nothing,
    "ac:parameter": _nothing,
    "br": lambda node: "\n",
    "ri:user": lambda node: "@user",
}
