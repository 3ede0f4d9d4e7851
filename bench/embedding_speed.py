"""How fast the bundled e5 embeds passages: the whole passage (before) against what is embedded
now, its first ~160 tokens under title and headings (``Chunk.dense_text``).

    .venv/bin/python bench/embedding_speed.py [--sample 48] [--rounds 3]

A fixed sample of passages from ``../shared/data/realdocs-tune`` (both corpora) and
``../shared/data/cmrc2018-trial``, split as the product splits them, is embedded in rounds that
alternate the two texts, so both see the same machine load; printed are passages per second
(median over rounds), their ratio, and the tokens each reads. Time to full quality for a
corpus is its passage count divided by the rate. Quality: ``python -m rag eval`` on
cmrc2018-trial with ``--embeddings e5`` (bench/README.md).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from rag.chunks import Chunk
from rag.cli.eval_data import load_corpus
from rag.ingest.loaders import load_folder
from rag.ingest.splitter import Splitter
from rag.search.embeddings import E5Embeddings

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def passages() -> list[Chunk]:
    splitter = Splitter()
    chunks: list[Chunk] = []
    for corpus in ("en-18f", "zh-apisix"):
        docs, _ = load_folder(DATA / "realdocs-tune" / corpus / "docs")
        chunks.extend(c for doc in docs for c in splitter.split(doc))
    for doc in load_corpus(DATA / "cmrc2018-trial" / "corpus.jsonl"):
        chunks.extend(splitter.split(doc))
    return chunks


def rate(embedder: E5Embeddings, texts: list[str]) -> float:
    started = time.perf_counter()
    embedder.embed_documents(texts)
    return len(texts) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=48)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    chunks = passages()
    sample = random.Random(7).sample(chunks, args.sample)
    before = [c.indexed_text for c in sample]
    after = [c.dense_text for c in sample]
    embedder = E5Embeddings()
    model = embedder._loaded()
    tokens_before = statistics.median(model.token_count(t) for t in before)
    tokens_after = statistics.median(model.token_count(t) for t in after)
    rates: dict[str, list[float]] = {"whole passage": [], "dense_text": []}
    for _ in range(args.rounds):
        rates["whole passage"].append(rate(embedder, before))
        rates["dense_text"].append(rate(embedder, after))
    print(f"{len(chunks)} passages in the three sets; sample of {args.sample}")
    for name, tokens in (("whole passage", tokens_before), ("dense_text", tokens_after)):
        median = statistics.median(rates[name])
        print(
            f"  {name:<14} median {median:5.2f} passages/s over {args.rounds} rounds "
            f"(median {tokens:.0f} tokens a passage)"
        )
    ratio = statistics.median(rates["dense_text"]) / statistics.median(rates["whole passage"])
    print(f"  speed-up {ratio:.2f}x")


if __name__ == "__main__":
    main()
