"""citebot's answer core: documents in, checked answers out.

The path of a question, one sub-package per stage::

    ingest/    files -> passages (loaders, formats, splitter)
    search/    the index (its build and manifest), lexical + dense search, rank fusion, the
               refusal gate and its calibration
    generate/  prompt, chat model (offline extractive answerer or OpenAI-compatible, retried)
    check/     the citation checker: references, claims, numbers, arithmetic, recited rules
    cache/     the answer cache (in-process or Redis) and its single-flight
    reviewed/  answers a person approved, edited, rejected or withdrew, reused before the cache
    feedback/  people's votes on answers (👍 / 👎 and what was wrong), for the bot and the report
    scopes/    who may see which documents: SCOPES_FILE, globs, scope sets and their keys
    pipeline   reviewed? -> cache -> retrieve -> gate -> generate -> check -> result

Beside the path: ``serving/`` keeps a pipeline live in a long-running process (the served
index, refresh, background builds, coordination and shared vectors between processes);
``sync/`` copies the SOURCES_FILE wikis (Confluence, Feishu) into DOCS_DIR, over ``http/`` (JSON
with retries, and the Feishu Open API client the Feishu bot uses too); ``storage/`` is
what every part that keeps something outside the process stands on (the guarded Redis client,
versioned records, JSON lines kept for RETENTION_DAYS). Every error of ours is a
:class:`CitebotError` (``rag/errors.py`` draws the tree).

The edges (``bot/``, ``python -m rag``) import what they need from this module only. Names are
loaded on first use, so ``import rag`` stays cheap for a settings error or ``rag cache stats``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rag.assemble import build_pipeline as build_pipeline
    from rag.chunks import Chunk as Chunk
    from rag.errors import CitebotError as CitebotError
    from rag.feedback.stores import vote_store as vote_store
    from rag.feedback.votes import MAX_NOTE_CHARS as MAX_NOTE_CHARS
    from rag.feedback.votes import VoteRecord as VoteRecord
    from rag.feedback.votes import VoteStore as VoteStore
    from rag.feedback.votes import VoteVerdict as VoteVerdict
    from rag.feedback.votes import question_key as question_key
    from rag.followup.rewrite import Rewriter as Rewriter
    from rag.followup.smalltalk import is_small_talk as is_small_talk
    from rag.generate.llm import GenerationError as GenerationError
    from rag.http.feishu import ChatRate as ChatRate
    from rag.http.feishu import FeishuOpenApi as FeishuOpenApi
    from rag.http.retry import HTTP_ERRORS as HTTP_ERRORS
    from rag.http.retry import HttpError as HttpError
    from rag.http.retry import HttpRetry as HttpRetry
    from rag.http.retry import answering_retry as answering_retry
    from rag.http.retry import http_reason as http_reason
    from rag.language import Language as Language
    from rag.language import detect_language as detect_language
    from rag.messages import model_failure_text as model_failure_text
    from rag.messages import refusal_text as refusal_text
    from rag.pipeline import MAX_QUESTION_CHARS as MAX_QUESTION_CHARS
    from rag.pipeline import Pipeline as Pipeline
    from rag.pipeline import Withdrawal as Withdrawal
    from rag.problems import Problem as Problem
    from rag.problems import ProblemRecord as ProblemRecord
    from rag.problems import SentenceProblems as SentenceProblems
    from rag.problems import by_sentence as by_sentence
    from rag.progress import Progress as Progress
    from rag.progress import Stage as Stage
    from rag.questions import question_digest as question_digest
    from rag.report.records import ReviewRecord as ReviewRecord
    from rag.report.records import question_record as question_record
    from rag.report.store import RecordStore as RecordStore
    from rag.report.store import record_store as record_store
    from rag.report.summary import build_report as build_report
    from rag.results import Answer as Answer
    from rag.results import Hit as Hit
    from rag.results import Provenance as Provenance
    from rag.results import Refusal as Refusal
    from rag.results import Result as Result
    from rag.results import Unverified as Unverified
    from rag.results import answer_hash as answer_hash
    from rag.reviewed.answers import ReviewedAnswers as ReviewedAnswers
    from rag.reviewed.answers import ReviewedSource as ReviewedSource
    from rag.scopes.file import ScopesFile as ScopesFile
    from rag.scopes.file import ScopesFileError as ScopesFileError
    from rag.scopes.file import load_scopes_file as load_scopes_file
    from rag.scopes.file import read_scopes as read_scopes
    from rag.scopes.sets import EVERYTHING as EVERYTHING
    from rag.scopes.sets import ScopeCatalog as ScopeCatalog
    from rag.scopes.sets import ScopeSet as ScopeSet
    from rag.serving.backfill_watch import BackfillWatch as BackfillWatch
    from rag.serving.live import LivePipeline as LivePipeline
    from rag.serving.refresh import Refresher as Refresher
    from rag.serving.serve import serve_pipeline as serve_pipeline
    from rag.settings import EdgeSettings as EdgeSettings
    from rag.settings import Settings as Settings
    from rag.settings import SettingsError as SettingsError
    from rag.settings import flag as flag
    from rag.settings import secret as secret
    from rag.storage.records import Record as Record
    from rag.storage.records import check_version as check_version
    from rag.storage.records import validation_error as validation_error
    from rag.storage.redis_guard import GuardedRedis as GuardedRedis
    from rag.storage.redis_guard import RedisUnavailable as RedisUnavailable
    from rag.sync.sources_file import SourcesFile as SourcesFile
    from rag.sync.sources_file import read_sources as read_sources

_HOME = {
    "build_pipeline": "rag.assemble",
    "answer_hash": "rag.results",
    "GuardedRedis": "rag.storage.redis_guard",
    "RedisUnavailable": "rag.storage.redis_guard",
    "ReviewedAnswers": "rag.reviewed.answers",
    "ReviewedSource": "rag.reviewed.answers",
    "question_digest": "rag.questions",
    "Chunk": "rag.chunks",
    "CitebotError": "rag.errors",
    "ChatRate": "rag.http.feishu",
    "FeishuOpenApi": "rag.http.feishu",
    "HTTP_ERRORS": "rag.http.retry",
    "HttpError": "rag.http.retry",
    "HttpRetry": "rag.http.retry",
    "answering_retry": "rag.http.retry",
    "http_reason": "rag.http.retry",
    "MAX_NOTE_CHARS": "rag.feedback.votes",
    "VoteRecord": "rag.feedback.votes",
    "VoteStore": "rag.feedback.votes",
    "VoteVerdict": "rag.feedback.votes",
    "question_key": "rag.feedback.votes",
    "vote_store": "rag.feedback.stores",
    "Rewriter": "rag.followup.rewrite",
    "is_small_talk": "rag.followup.smalltalk",
    "GenerationError": "rag.generate.llm",
    "Language": "rag.language",
    "detect_language": "rag.language",
    "model_failure_text": "rag.messages",
    "refusal_text": "rag.messages",
    "MAX_QUESTION_CHARS": "rag.pipeline",
    "Pipeline": "rag.pipeline",
    "Withdrawal": "rag.pipeline",
    "Refresher": "rag.serving.refresh",
    "LivePipeline": "rag.serving.live",
    "Problem": "rag.problems",
    "ProblemRecord": "rag.problems",
    "SentenceProblems": "rag.problems",
    "by_sentence": "rag.problems",
    "Record": "rag.storage.records",
    "check_version": "rag.storage.records",
    "validation_error": "rag.storage.records",
    "Progress": "rag.progress",
    "Stage": "rag.progress",
    "ReviewRecord": "rag.report.records",
    "question_record": "rag.report.records",
    "RecordStore": "rag.report.store",
    "build_report": "rag.report.summary",
    "record_store": "rag.report.store",
    "Answer": "rag.results",
    "Hit": "rag.results",
    "Provenance": "rag.results",
    "Refusal": "rag.results",
    "Result": "rag.results",
    "Unverified": "rag.results",
    "ScopesFile": "rag.scopes.file",
    "ScopesFileError": "rag.scopes.file",
    "load_scopes_file": "rag.scopes.file",
    "read_scopes": "rag.scopes.file",
    "EVERYTHING": "rag.scopes.sets",
    "ScopeCatalog": "rag.scopes.sets",
    "ScopeSet": "rag.scopes.sets",
    "serve_pipeline": "rag.serving.serve",
    "BackfillWatch": "rag.serving.backfill_watch",
    "EdgeSettings": "rag.settings",
    "Settings": "rag.settings",
    "SettingsError": "rag.settings",
    "flag": "rag.settings",
    "secret": "rag.settings",
    "SourcesFile": "rag.sync.sources_file",
    "read_sources": "rag.sync.sources_file",
}

__all__ = sorted(_HOME)


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        msg = f"module 'rag' has no attribute {name!r}"
        raise AttributeError(msg)
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # later look-ups skip this function
    return value
