"""The index on disk: a manifest under INDEX_DIR, rebuilt incrementally from DOCS_DIR.

``manifest.json`` (:mod:`rag.search.manifest`) records the index version, the splitter, embedder
and gate it was built with, and each file's size, time and content hash with its chunks; vectors
live in the embedding cache (:class:`rag.search.embeddings.CachedEmbeddings`), the lexical
index beside them (:mod:`rag.search.lexical_store`). :func:`load_or_build` reads only files
whose size or time changed (:mod:`rag.search.folder_read`), splits only those whose hash
changed (:mod:`rag.search.folder_split`) and embeds only chunks whose text changed; when no
file changed, the manifest's snapshot (:mod:`rag.search.snapshot`) is the whole index, so an
unchanged folder of 36k passages opens in about half a second; a damaged manifest means a
rebuild, never a crash.

The report (:class:`BuildReport`) is returned beside the index, not stored on it: the index
knows nothing of how it was built. A lexical result (``embed_at_most``) is the index
``embeddings=None`` builds, so a command answering before the vectors exist answers exactly as
``EMBEDDINGS=none`` and a bot's lexical phase do.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from langchain_core.embeddings import Embeddings

from rag.ingest.documents import SourceDocument
from rag.ingest.loaders import Skipped
from rag.ingest.splitter import Splitter
from rag.search.build_vectors import dense_vectors, local_cache, missing_vectors
from rag.search.calibration import load_calibration
from rag.search.embedding_run import OnProgress
from rag.search.embeddings import CachedEmbeddings, embedder_identity
from rag.search.folder_read import READER, FolderRead, read_folder
from rag.search.folder_split import Split, snapshot_split, split_folder
from rag.search.gate import GateModel, gate_for
from rag.search.handles import for_questions
from rag.search.index import Index
from rag.search.lexical_store import Lexical, open_lexical
from rag.search.manifest import (
    Manifest,
    StoredFile,
    manifest_bytes,
    parse_manifest,
    write_manifest,
)
from rag.search.on_demand import OnDemand
from rag.search.progress_line import OnStage
from rag.search.snapshot import Snapshot, read_snapshot, write_snapshot
from rag.search.vectors import VectorStore
from rag.search.versions import version_of

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class BuildReport:
    """What :func:`load_or_build` did, for the ``rag index`` summary."""

    files: int
    skipped: tuple[Skipped, ...]
    chunked_files: int
    """Files split this run (new or changed); the others reused their stored chunks."""
    chunks: int
    embedded: int
    reused: int
    seconds: float
    version: str
    previous_version: str | None
    missing: int = 0
    """Passages left without a vector: the index is lexical (see ``embed_at_most``)."""
    vectors: int = 0
    """Distinct vectors the passages need (passages with the same text share one)."""


def index_documents(
    docs: Sequence[SourceDocument],
    *,
    embeddings: Embeddings | None,
    splitter: Splitter | None = None,
    min_score: float | None = None,
    progress: bool = False,
    store: VectorStore | None = None,
) -> Index:
    """Split, embed and index ``docs`` in memory, nothing stored (tests, eval, a lexical
    start); with a ``store`` the vectors go there instead (embedding only what it lacks)."""
    splitter = splitter or Splitter()
    chunks = [chunk for doc in docs for chunk in splitter.split(doc)]
    return Index.from_chunks(
        chunks,
        embeddings=embeddings,
        splitter=splitter,
        min_score=min_score,
        progress=progress,
        store=store,
    )


def load_or_build(
    docs_dir: Path,
    index_dir: Path,
    *,
    embeddings: Embeddings | None,
    min_score: float | None = None,
    progress: bool = False,
    on_progress: OnProgress | None = None,
    store: bool = True,
    embed_at_most: int | None = None,
    on_stage: OnStage | None = None,
    vector_store: VectorStore | None = None,
) -> tuple[Index, BuildReport]:
    """The index over ``docs_dir``: loaded from ``index_dir`` when still valid, else rebuilt
    incrementally (module docstring), and the report of what was loaded, split and embedded.

    ``min_score``: MIN_SCORE, else a calibration stored for the gate, else its default.
    ``on_progress`` hears how the embedding goes (``progress``: a line on stderr), ``on_stage``
    how reading, splitting and counting terms go; ``store=False`` writes no manifest (others
    would read it as a new version). ``embed_at_most``: when more passages lack a vector, none
    is embedded and the index is the lexical one (:func:`_lexical_start`; the report's
    ``missing`` says how many lack one). ``vector_store``: where the vectors live when not
    under INDEX_DIR (``VECTOR_STORE=qdrant``, :mod:`rag.search.build_vectors`)."""
    started = time.perf_counter()
    splitter = Splitter()
    identity = None if embeddings is None else embedder_identity(embeddings)
    gate = gate_for(identity)
    shape = (splitter.chunk_size, splitter.chunk_overlap)
    raw = manifest_bytes(index_dir)
    opened = _open(docs_dir, index_dir, raw, splitter, on_stage)
    read, split = opened.read, opened.split
    cached = local_cache(embeddings, index_dir, vector_store)
    missing = missing_vectors(split, cached, vector_store, identity, gate, splitter)
    on_demand = None
    if embeddings is not None and embed_at_most is not None and missing > embed_at_most:
        # Lexical: stored only as the first record of the folder (none announced yet).
        on_demand, gate = _lexical_start(split, cached, gate)
        embeddings, cached, identity = None, None, None
        store = store and raw is None
    version = version_of(split.digests, splitter, identity, gate)
    dense = dense_vectors(
        split, index_dir, cached, vector_store, embeddings, identity, version, progress, on_progress
    )
    built = Manifest(version=version, splitter=shape, embedder=identity, gate=gate.identity)
    _record(index_dir, raw, opened, built.model_copy(update={"reader": READER}), store=store)
    calibration = load_calibration(index_dir, gate.identity)
    min_score = min_score if min_score is not None or calibration is None else calibration.min_score
    lexical = _lexical(index_dir, split, shape, on_stage)
    index = Index(
        split.chunks,
        vectors=dense.vectors,
        embeddings=cached or embeddings,
        version=version,
        gate=gate,
        min_score=min_score,
        lexical=lexical.index,
        chinese=lexical.chinese,
        on_demand=on_demand,
    )
    return index, _report(read, split, dense.counts, version, opened.previous, missing, started)


def _lexical_start(
    split: Split, cached: CachedEmbeddings | None, gate: GateModel
) -> tuple[OnDemand | None, GateModel]:
    """How a lexical start weighs a question: with the vectors in this process, its candidates
    are embedded on demand and weighed by the dense gate (:mod:`rag.search.on_demand`); else
    (a vector store out of reach) by the lexical gate."""
    if cached is None:
        return None, gate_for(None)
    asking = for_questions(cached.inner)
    return OnDemand(split.chunks, asking, cached.path, stored=cached), gate


@dataclass(frozen=True, slots=True)
class _Opened:
    """The folder against what INDEX_DIR recorded of it."""

    read: FolderRead
    split: Split
    manifest: Manifest | None
    """The stored manifest, when it had to be read (a file changed, no snapshot)."""
    snapshot: Snapshot | None

    @property
    def previous(self) -> str | None:
        """The index version recorded before this build."""
        if self.manifest is not None:
            return self.manifest.version
        return None if self.snapshot is None else self.snapshot.version


def _open(
    docs_dir: Path,
    index_dir: Path,
    raw: bytes | None,
    splitter: Splitter,
    on_stage: OnStage | None,
) -> _Opened:
    """Sizes and times first: when no file changed since the manifest's snapshot, the snapshot
    is the whole index (no record validated, no chunk hashed); else the manifest is read and
    only what changed is read and split."""
    shape = (splitter.chunk_size, splitter.chunk_overlap)
    snapshot = None if raw is None else read_snapshot(index_dir, raw)
    if snapshot is not None and (snapshot.reader, snapshot.splitter) != (READER, shape):
        snapshot = None
    read = None
    if snapshot is not None:
        read = read_folder(docs_dir, snapshot.files, trusted=True, on_stage=on_stage)
        if not read.documents and read.order == list(snapshot.files):
            split = snapshot_split(snapshot)
            return _Opened(read, split, None, snapshot)
    manifest = None if raw is None else parse_manifest(index_dir, raw)
    reusable = manifest.files if manifest is not None and manifest.splitter == shape else {}
    trusted = manifest is not None and manifest.reader == READER
    if read is None or manifest is None:
        read = read_folder(docs_dir, reusable, trusted=trusted, on_stage=on_stage)
    split = split_folder(read, reusable, splitter, trusted=trusted, on_stage=on_stage)
    return _Opened(read, split, manifest, snapshot)


def _record(
    index_dir: Path, raw: bytes | None, opened: _Opened, built: Manifest, *, store: bool
) -> None:
    """Writes the manifest ``built`` (its files from the folder) when it differs from the
    stored one, and the snapshot of whichever manifest is then on disk."""
    files, manifest = opened.split.files, opened.manifest
    if files is None:  # unchanged since the snapshot
        if not store or (built.embedder, built.gate) == _built_by(opened.snapshot):
            return
        # Another embedder or gate over unchanged files (EMBEDDINGS changed): a new version
        # to record, from the manifest's own entries.
        manifest = None if raw is None else parse_manifest(index_dir, raw)
        if manifest is None:
            return
        files = dict(manifest.files)
    built = built.model_copy(update={"files": files})
    if store and built != manifest:
        write_snapshot(index_dir, write_manifest(index_dir, built), built)
    elif raw is not None and manifest is not None and _same_files(manifest, files):
        # The stored record still holds (first open by this code, or a lexical start over
        # it): its snapshot, so that the next open is fast. Its sizes and times are this
        # reader's now: a record of other code had every file read again, to the same hashes.
        update = {"files": files, "reader": READER}
        write_snapshot(index_dir, raw, manifest.model_copy(update=update))


def _built_by(snapshot: Snapshot | None) -> tuple[str | None, str] | None:
    return None if snapshot is None else (snapshot.embedder, snapshot.gate)


def _same_files(manifest: Manifest, files: Mapping[str, StoredFile]) -> bool:
    """Whether ``files`` are the manifest's own, but for the digests this code adds."""
    if list(manifest.files) != list(files):
        return False
    return all(
        stored.model_copy(update={"digest": None}) == entry.model_copy(update={"digest": None})
        for stored, entry in zip(manifest.files.values(), files.values(), strict=True)
    )


def _lexical(
    index_dir: Path, split: Split, shape: tuple[int, int], on_stage: OnStage | None
) -> Lexical:
    """The files' content hashes, the splitter and the code that read them fix every chunk's
    text: hashing those is a fraction of hashing 36k chunks."""
    basis = "\n".join(f"{name}\t{hash_}" for name, hash_ in split.hashes)
    return open_lexical(
        index_dir, split.chunks, basis=f"{READER}\n{shape}\n{basis}", on_stage=on_stage
    )


def _report(
    read: FolderRead,
    split: Split,
    counts: tuple[int, int] | None,
    version: str,
    previous: str | None,
    missing: int,
    started: float,
) -> BuildReport:
    return BuildReport(
        files=len(read.order),
        skipped=tuple(read.skipped),
        chunked_files=split.chunked_files,
        chunks=len(split.chunks),
        embedded=0 if counts is None else counts[0],
        reused=0 if counts is None else counts[1],
        seconds=time.perf_counter() - started,
        version=version,
        previous_version=previous,
        missing=missing if counts is None else 0,
        vectors=len(set(split.keys)),
    )
