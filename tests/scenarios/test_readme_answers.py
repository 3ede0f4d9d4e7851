"""The README's example questions on docs/, in both phases, as ``python -m bot`` composes the
answer core from the environment: each is answered from the documents about it, never with a
sentence from an unrelated one (the levels question once ended with the refund policy's
"本制度适用于……自 2026 年 9 月 1 日起执行").

Words alone: ``EMBEDDINGS=none``. Full mode: the bundled e5, whose similarity the offline
answerer also uses to choose sentences. (The first minutes, on the Slack app, in both phases:
``test_answerability.py``.)"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from rag.assemble import build_pipeline
from rag.results import Answer
from rag.settings import Settings
from tests.scenarios.harness import DOCS

EXAMPLES = {
    "口语课一共有几级？": ({"courses.md", "advisor-handbook.md"}, ["入门级", "商务级"]),
    "退费怎么算？": ({"refund-and-transfer.md", "advisor-handbook.md"}, ["手续费"]),
    "年假怎么算": ({"hr/annual-leave.md", "hr/attendance-and-overtime.md"}, ["15 个工作日"]),
    "加班费怎么算？": ({"hr/attendance-and-overtime.md"}, ["150%", "200%", "300%"]),
    "How many days of annual leave do I get?": ({"hr/annual-leave.md"}, ["15 working days"]),
}
"""Question -> (the documents about it, what its answer must say)."""


async def _check_examples(settings: Settings) -> None:
    pipeline = build_pipeline(settings, redis=None)
    for question, (about, says) in EXAMPLES.items():
        result = await pipeline.answer(question)
        assert isinstance(result, Answer), (question, result)
        cited = {int(n) for n in re.findall(r"\[(\d+)\]", result.text)}
        quoted = {result.hits[n - 1].chunk.source for n in cited}
        assert quoted <= about, (question, quoted, result.text)
        for fact in says:
            assert fact in result.text, (question, fact, result.text)


async def test_the_readme_examples_are_answered_from_their_documents_by_words_alone() -> None:
    # EMBEDDINGS=none's gate is the strict one: on a folder this small it refuses the short
    # questions (the gate's own tests: test_answerability.py, test_threshold_edge.py). What is
    # tested here is the choice of sentences by words alone, so nothing is refused.
    index = Path(tempfile.mkdtemp())
    settings = Settings(docs_dir=DOCS, embeddings="none", index_dir=index, min_score=-9.0)
    await _check_examples(settings)


async def test_the_readme_examples_are_answered_from_their_documents_in_full_mode(
    e5_env: dict[str, str],
) -> None:
    await _check_examples(Settings.from_env(e5_env))
