"""Shared vectors benchmark (not a test): what a second machine saves on a changed corpus.

Two machines of one deployment (each its own DOCS_DIR copy and INDEX_DIR, one Redis) serve
``--passages`` passages of the cmrc2018-trial corpus. Every document's title changes, so every
passage changes. Machine a rebuilds first (embeds, shares the vectors); then machine b rebuilds
the way the bot does (the build in a thread, Redis through the serving loop):

- with the shared vectors: reads every vector from Redis, embeds nothing;
- re-embedding (what it did before, or with Redis down), from a copy of its old INDEX_DIR.

HashingEmbeddings (384 dimensions, e5-small's vector size) stand in for the embedder, so the
figures are the Redis transfer and the build around it; with the bundled e5 re-embedding costs
another passages / 4.7 s on 2 cores (printed as the estimate). A running bot adds up to the
refresher's 2 s poll before it starts.

    REDIS_URL=redis://127.0.0.1:6379/15 .venv/bin/python bench/shared_vectors.py --passages 1000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rag.search.build import load_or_build  # noqa: E402
from rag.search.embeddings import HashingEmbeddings  # noqa: E402
from rag.serving.shared_vectors import decode  # noqa: E402
from rag.serving.sharing import Sharing, index_vectors  # noqa: E402
from rag.storage.redis_guard import GuardedRedis  # noqa: E402

DATA = next(
    (up / "shared" / "data" / "cmrc2018-trial" for up in ROOT.parents if (up / "shared").is_dir()),
    ROOT.parent / "shared" / "data" / "cmrc2018-trial",
)
PASSAGES_PER_DOC = 1.55
"""Measured on cmrc2018-trial at the shipped chunking (see bench/freshness.py)."""
E5_PASSAGES_PER_SECOND = 4.7
DIM = 384


def write_docs(folder: Path, passages: int, edition: str) -> None:
    rows = [json.loads(line) for line in (DATA / "corpus.jsonl").read_text("utf-8").splitlines()]
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(max(1, round(passages / PASSAGES_PER_DOC))):
        doc, copy = rows[n % len(rows)], n // len(rows)
        title = f"{doc.get('title') or doc['id']}（{copy}，{edition}）"
        (folder / f"{doc['id']}-{copy}.md").write_text(f"# {title}\n\n{doc['text']}\n", "utf-8")


async def build(docs: Path, index: Path, sharing: Sharing | None) -> tuple[float, int, int]:
    """Seconds to rebuild (and share), passages read from Redis, passages embedded."""
    embeddings = HashingEmbeddings(DIM)
    shared = None if sharing is None else sharing.around(embeddings)
    started = time.perf_counter()
    built, report = await asyncio.to_thread(
        load_or_build, docs, index, embeddings=shared or embeddings
    )
    if sharing is not None:
        await sharing.vectors.publish(await asyncio.to_thread(index_vectors, built))
    seconds = time.perf_counter() - started
    fetched = 0 if shared is None else shared.fetched
    return seconds, fetched, report.embedded - fetched


def transfer(sharing: Sharing, keys: list[str]) -> float:
    """Seconds to read ``keys``' vectors as a build does: 32 a call, from a build thread."""
    started = time.perf_counter()
    for start in range(0, len(keys), 32):
        batch = keys[start : start + 32]
        empty: dict[str, bytes] = {}
        found = sharing.bridge.call(partial(sharing.vectors.fetch, batch), empty)
        assert len(decode(found)) == len(batch)
    return time.perf_counter() - started


async def main(passages: int, url: str) -> None:
    redis = GuardedRedis.from_url(
        url, connect_timeout_seconds=0.5, socket_timeout_seconds=0.5, timeout_seconds=0.5
    )  # the bot's own client settings (bot/root/services.py)
    sharing = Sharing.over(redis, HashingEmbeddings(DIM))
    sharing.bridge.attach()
    await redis.client.delete(sharing.vectors.key, sharing.vectors.used_key)
    work = Path(tempfile.mkdtemp(prefix="shared-vectors-"))
    try:
        for name in ("a", "b"):
            write_docs(work / name / "docs", passages, "v1")
            await asyncio.to_thread(
                load_or_build,
                work / name / "docs",
                work / name / "index",
                embeddings=HashingEmbeddings(DIM),
            )
        shutil.copytree(work / "b" / "index", work / "b" / "index-alone")
        for name in ("a", "b"):
            write_docs(work / name / "docs", passages, "v2")
        a = await build(work / "a" / "docs", work / "a" / "index", sharing)
        b = await build(work / "b" / "docs", work / "b" / "index", sharing)
        alone = await build(work / "b" / "docs", work / "b" / "index-alone", None)
        memory = await redis.client.memory_usage(sharing.vectors.key)
        keys = [
            key.decode() if isinstance(key, bytes) else key
            for key in await redis.client.hkeys(sharing.vectors.key)
        ]
        moved = await asyncio.to_thread(transfer, sharing, keys)
    finally:
        await redis.client.delete(sharing.vectors.key, sharing.vectors.used_key)
        await redis.aclose()
        shutil.rmtree(work)
    changed = a[2]
    held = "an unknown amount" if memory is None else f"{memory / 2**20:.1f} MiB"
    print(f"changed passages: {changed}; Redis holds {held} for them")
    print(f"machine a (embeds, shares):   {a[0]:6.2f} s  embedded {a[2]}, read {a[1]}")
    print(f"machine b, shared vectors:    {b[0]:6.2f} s  embedded {b[2]}, read {b[1]}")
    print(f"  of which reading the vectors from Redis: {moved:.2f} s (32 a call)")
    print(f"machine b, re-embedding:      {alone[0]:6.2f} s  embedded {alone[2]} (hashing)")
    e5 = b[0] - moved + alone[2] / E5_PASSAGES_PER_SECOND
    print(f"machine b, re-embedding (e5): {e5:6.0f} s  estimated at {E5_PASSAGES_PER_SECOND}/s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=1000)
    args = parser.parse_args()
    asyncio.run(main(args.passages, os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")))
