"""Feishu / Lark docx blocks -> Markdown.

A docx document is a tree of blocks (``docx/v1/documents/{id}/blocks`` lists them flat, each
naming its ``children``); the page block is the root. Kept: headings 1–9 (7–9 as level 6, the
deepest Markdown has), text with bold/italic/strikethrough/inline code and links, @-mentioned
documents as links, equations as ``$…$``, bulleted and ordered lists (nested), to-dos, code
with its language, quotes and quote containers, callouts (as quotes), tables (first row as the
header), dividers, grids (their columns one after another), and a file's name. Dropped: images,
and the formatting Markdown has no words for (colours, alignment, merged cells). A block type
this module does not know keeps its text, or else says ``[unsupported block: N]``: never
dropped silently.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import unquote

from rag.sync.markdown import fence, heading, item, join, quote, table

Block = Mapping[str, Any]

PAGE, TEXT, BULLET, ORDERED, CODE, QUOTE, TODO = 1, 2, 12, 13, 14, 15, 17
CALLOUT, DIVIDER, FILE, GRID, GRID_COLUMN, IMAGE = 19, 22, 23, 24, 25, 27
TABLE, TABLE_CELL, QUOTE_CONTAINER = 31, 32, 34
HEADINGS = {block_type: block_type - 2 for block_type in range(3, 12)}
"""heading1 (3) … heading9 (11)."""
DROPPED = frozenset({IMAGE})
LANGUAGES = {
    7: "bash", 8: "csharp", 9: "cpp", 10: "c", 12: "css", 22: "go", 24: "html", 28: "json",
    29: "java", 30: "javascript", 32: "kotlin", 39: "markdown", 43: "php", 49: "python",
    52: "ruby", 53: "rust", 56: "sql", 60: "shell", 61: "swift", 63: "typescript", 66: "xml",
    67: "yaml",
}  # fmt: skip
"""Feishu's code language numbers for the common ones; others get a plain fence."""
_FIELDS = {TEXT: "text", BULLET: "bullet", ORDERED: "ordered", CODE: "code", QUOTE: "quote"}
_FIELDS |= {TODO: "todo", CALLOUT: "callout", TABLE: "table", FILE: "file"}
_FIELDS |= {number: f"heading{level}" for number, level in HEADINGS.items()}


def blocks_to_markdown(blocks: Sequence[Block]) -> str:
    tree = _Tree({str(block.get("block_id")): block for block in blocks})
    pages = [block for block in blocks if block.get("block_type") == PAGE]
    if not pages:  # no page block (a partial listing): the blocks no listed block holds
        top = [b.get("block_id") for b in blocks if str(b.get("parent_id")) not in tree.blocks]
        pages = [{"children": top}]
    return join([text for page in pages for text in tree.children(page)])


class _Tree:
    def __init__(self, blocks: dict[str, Block]) -> None:
        self.blocks = blocks

    def children(self, block: Block) -> list[str]:
        """The child blocks as Markdown blocks; runs of list items become one list."""
        out: list[str] = []
        number, previous = 0, 0
        for child_id in block.get("children") or []:
            child = self.blocks.get(str(child_id))
            if child is None:
                continue
            kind = int(child.get("block_type") or 0)
            number = number + 1 if kind == ORDERED else 0
            rendered = self.block(child, number)
            if kind in _LISTS and kind == previous and out and out[-1].startswith(_LIST_MARK):
                out[-1] += "\n" + rendered
            elif rendered:
                out.append(_LIST_MARK + rendered if kind in _LISTS else rendered)
            previous = kind
        return [text.removeprefix(_LIST_MARK) for text in out]

    def block(self, block: Block, number: int = 0) -> str:
        kind = int(block.get("block_type") or 0)
        if kind in HEADINGS:
            return heading(HEADINGS[kind], inline(_body(block, kind)))
        render = _RENDER.get(kind)
        if render is not None:
            return render(self, block, number)
        if kind in DROPPED:
            return ""
        return self.unknown(block, kind)

    def nested(self, block: Block) -> str:
        return "\n".join(self.children(block))

    def unknown(self, block: Block, kind: int) -> str:
        texts = [
            text for key, value in block.items() if key not in _STRUCTURE for text in _texts(value)
        ]
        own = " ".join(text.strip() for text in texts if text.strip())
        inner = join(self.children(block))
        return join([own, inner]) or f"[unsupported block: {kind}]"


_LIST_MARK = "\x00list\x00"
"""Marks a rendered list item while siblings are gathered (never left in the output)."""
_LISTS = frozenset({BULLET, ORDERED, TODO})
_STRUCTURE = frozenset({"block_id", "parent_id", "children", "block_type"})


def _body(block: Block, kind: int) -> Mapping[str, Any]:
    value = block.get(_FIELDS.get(kind, ""))
    return value if isinstance(value, Mapping) else {}


def _texts(value: Any) -> list[str]:
    """Every ``content`` string inside a block we don't know (its text runs)."""
    if isinstance(value, Mapping):
        own = [str(value["content"])] if isinstance(value.get("content"), str) else []
        return own + [t for k, v in value.items() if k != "content" for t in _texts(v)]
    if isinstance(value, list):
        return [text for entry in value for text in _texts(entry)]
    return []


# --- inline ---------------------------------------------------------------------------------


def inline(body: Mapping[str, Any], *, plain: bool = False) -> str:
    return "".join(_element(element, plain) for element in body.get("elements") or [])


def _element(element: Mapping[str, Any], plain: bool) -> str:
    run = element.get("text_run")
    if isinstance(run, Mapping):
        content = str(run.get("content") or "")
        return content if plain else _styled(content, run.get("text_element_style") or {})
    doc = element.get("mention_doc")
    if isinstance(doc, Mapping):
        title, url = str(doc.get("title") or ""), unquote(str(doc.get("url") or ""))
        return f"[{title or url}]({url})" if url and not plain else title
    equation = element.get("equation")
    if isinstance(equation, Mapping):
        return f"${str(equation.get('content') or '').strip()}$"
    if isinstance(element.get("mention_user"), Mapping):
        return "@user"
    return ""


def _styled(content: str, style: Mapping[str, Any]) -> str:
    core = content.strip()
    if not core:
        return content
    if style.get("inline_code"):
        core = f"`{core}`"
    else:
        for flag, mark in (("bold", "**"), ("italic", "*"), ("strikethrough", "~~")):
            if style.get(flag):
                core = f"{mark}{core}{mark}"
    link = style.get("link")
    if isinstance(link, Mapping) and link.get("url"):
        core = f"[{core}]({unquote(str(link['url']))})"
    start = content[: len(content) - len(content.lstrip())]
    return f"{start}{core}{content[len(content.rstrip()) :]}"


# --- the block kinds ------------------------------------------------------------------------


def _text(tree: _Tree, block: Block, number: int) -> str:
    return join([inline(_body(block, TEXT)), tree.nested(block)])


def _list_item(tree: _Tree, block: Block, number: int) -> str:
    kind = int(block["block_type"])
    if kind == TODO:
        done = bool((_body(block, TODO).get("style") or {}).get("done"))
        marker = f"- [{'x' if done else ' '}]"
    else:
        marker = f"{number}." if kind == ORDERED else "-"
    return item(marker, "\n".join([inline(_body(block, kind)), *tree.children(block)]))


def _code(tree: _Tree, block: Block, number: int) -> str:
    body = _body(block, CODE)
    language = LANGUAGES.get(int((body.get("style") or {}).get("language") or 0), "")
    return fence(inline(body, plain=True), language)


def _quote(tree: _Tree, block: Block, number: int) -> str:
    return quote(join([inline(_body(block, QUOTE)), *tree.children(block)]))


def _container(tree: _Tree, block: Block, number: int) -> str:
    return quote(join(tree.children(block)))


def _divider(tree: _Tree, block: Block, number: int) -> str:
    return "---"


def _table(tree: _Tree, block: Block, number: int) -> str:
    body = _body(block, TABLE)
    cells = [str(cell) for cell in body.get("cells") or []]
    columns = int((body.get("property") or {}).get("column_size") or 0) or len(cells) or 1
    texts = [join(tree.children(tree.blocks.get(cell, {}))) for cell in cells]
    return table([texts[start : start + columns] for start in range(0, len(texts), columns)])


def _grid(tree: _Tree, block: Block, number: int) -> str:
    return join(tree.children(block))


def _file(tree: _Tree, block: Block, number: int) -> str:
    name = str(_body(block, FILE).get("name") or "")
    return f"[file: {name}]" if name else ""


_RENDER: dict[int, Callable[[_Tree, Block, int], str]] = {
    TEXT: _text,
    BULLET: _list_item,
    ORDERED: _list_item,
    TODO: _list_item,
    CODE: _code,
    QUOTE: _quote,
    QUOTE_CONTAINER: _container,
    CALLOUT: _container,
    DIVIDER: _divider,
    TABLE: _table,
    GRID: _grid,
    GRID_COLUMN: _grid,
    FILE: _file,
    PAGE: _grid,
}
