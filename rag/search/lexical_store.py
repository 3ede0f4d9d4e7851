"""The lexical index on disk: its term counts under INDEX_DIR, keyed by what they count.

Counting the terms of every passage (words, stems, CJK bigrams) is the slowest part of opening
an index: about 10 s at 36k passages, paid by every ``rag ask`` and every start. The counts
depend only on the passages' indexed texts and on the code that reads them, so they are stored
once (``lexical-<key>.npz``: the sparse matrix, its terms, and which passages are written in
Chinese, which a question in the other language needs and which takes half a second to read
again at 36k passages) and loaded in a fraction of a second. The key hashes the passages'
content hashes and the source of the modules that read text (:mod:`rag.reading`,
:mod:`rag.search.lexical`, :mod:`rag.language`): a change to either counts again, never serves
stale terms. A missing, damaged or unwritable file only costs the counting.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import overload

import numpy as np
import numpy.typing as npt
from scipy import sparse

from rag import language, reading
from rag.chunks import Chunk, content_hash
from rag.search import lexical
from rag.search.lexical import LexicalIndex
from rag.search.progress_line import OnStage

logger = logging.getLogger(__name__)

PREFIX = "lexical-"
REPORT_EVERY = 500
"""Passages between two progress updates while counting (a few tenths of a second)."""


def _reader_identity() -> str:
    modules = (reading, lexical, language)
    sources = [Path(module.__file__ or "").read_bytes() for module in modules]
    return content_hash(b"".join(sources).decode("utf-8", "replace"))


_READER = _reader_identity()


def lexical_key(chunks: Sequence[Chunk], basis: str | None = None) -> str:
    """``basis``: what determines the chunks' texts when the caller knows it more cheaply
    than by hashing every chunk (the files' content hashes and the code that split them)."""
    if basis is None:
        basis = "\n".join(chunk.hash for chunk in chunks)
    return content_hash(f"{_READER}\n{len(chunks)}\n{basis}")[:16]


@dataclass(frozen=True, slots=True)
class Lexical:
    """What is read off the passages' texts once: their terms, and their language."""

    index: LexicalIndex
    chinese: npt.NDArray[np.bool_]
    """Row ``i``: passage ``i`` is written in Chinese (:func:`rag.language.detect_language`)."""


def written_in_chinese(chunks: Sequence[Chunk]) -> npt.NDArray[np.bool_]:
    return np.fromiter(
        (language.detect_language(chunk.text) == "zh" for chunk in chunks),
        dtype=np.bool_,
        count=len(chunks),
    )


def open_lexical(
    index_dir: Path,
    chunks: Sequence[Chunk],
    *,
    basis: str | None = None,
    on_stage: OnStage | None = None,
) -> Lexical:
    """The lexical index of ``chunks``: loaded when stored, else counted (``on_stage`` hears
    how far) and stored."""
    key = lexical_key(chunks, basis)
    path = index_dir / f"{PREFIX}{key}.npz"
    loaded = _load(path, len(chunks))
    if loaded is not None:
        return loaded
    counted = Lexical(LexicalIndex(_Counted(chunks, on_stage)), written_in_chinese(chunks))
    try:
        _save(path, counted)
    except OSError as error:
        logger.warning("could not store the lexical index in %s: %s", index_dir, error)
    return counted


class _Counted(Sequence[str]):
    """The chunks' indexed texts, reporting every :data:`REPORT_EVERY` how many were read
    (counting 36k passages' terms takes seconds)."""

    def __init__(self, chunks: Sequence[Chunk], on_stage: OnStage | None) -> None:
        self.chunks = chunks
        self.on_stage = on_stage

    def __len__(self) -> int:
        return len(self.chunks)

    @overload
    def __getitem__(self, position: int) -> str: ...

    @overload
    def __getitem__(self, position: slice) -> Sequence[str]: ...

    def __getitem__(self, position: int | slice) -> str | Sequence[str]:
        if isinstance(position, slice):
            return [chunk.indexed_text for chunk in self.chunks[position]]
        return self.chunks[position].indexed_text

    def __iter__(self) -> Iterator[str]:
        total = len(self.chunks)
        for done, chunk in enumerate(self.chunks):
            if self.on_stage is not None and done % REPORT_EVERY == 0:
                self.on_stage("counting terms", done, total)
            yield chunk.indexed_text
        if self.on_stage is not None and total:
            self.on_stage("counting terms", total, total)


def _load(path: Path, rows: int) -> Lexical | None:
    if not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as stored:
            shape = (int(stored["shape"][0]), int(stored["shape"][1]))
            tf = sparse.csc_matrix(
                (stored["data"], stored["indices"], stored["indptr"]), shape=shape
            )
            terms = stored["terms"].tobytes().decode("utf-8").split("\n")
            chinese = stored["chinese"].astype(np.bool_)
    except (OSError, KeyError, ValueError, UnicodeDecodeError) as error:
        logger.warning("stored lexical index %s is unreadable (%s); counting again", path, error)
        return None
    if shape[0] != rows or len(terms) != shape[1] or len(chinese) != rows:
        return None
    return Lexical(LexicalIndex.from_counts(tf, terms), chinese)


def _save(path: Path, lexical: Lexical) -> None:
    """Atomically, then the other stored lexical indexes go: only the current one is read."""
    tf, terms = lexical.index.counts
    if any("\n" in term for term in terms):
        return  # terms are words, never lines; stored any other way they would not read back
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.stem}.{os.getpid()}.partial.npz")
    np.savez(
        partial,
        data=tf.data,
        indices=tf.indices,
        indptr=tf.indptr,
        shape=np.asarray(tf.shape, np.int64),
        # One UTF-8 string, not a fixed-width array: one long term would widen every row.
        terms=np.frombuffer("\n".join(terms).encode("utf-8"), np.uint8),
        chinese=lexical.chinese,
    )
    partial.replace(path)
    for old in path.parent.glob(f"{PREFIX}*.npz"):
        if old != path and ".partial" not in old.name:
            old.unlink(missing_ok=True)
