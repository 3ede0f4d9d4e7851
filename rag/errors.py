"""The one root of citebot's exceptions: ``except CitebotError`` catches every error of ours.

Each class keeps the built-in base its callers catch it by (``ValueError``, ``RuntimeError``)
beside this root. What goes wrong, and who turns it into a sentence::

    CitebotError
    ├── SettingsError (ValueError)        rag.settings: a setting the program cannot use
    │   ├── ScopesFileError               rag.scopes.file: SCOPES_FILE, ``file:line: why``
    │   ├── SourcesFileError              rag.sync.sources_file: SOURCES_FILE, one line
    │   ├── CollectionMismatch            rag.qdrant.store: QDRANT_COLLECTION of another embedder
    │   └── TokenRefused                  bot.slack.identity: Slack refused SLACK_BOT_TOKEN
    ├── UnknownScope (ValueError)         rag.scopes.sets: a scope the scopes file doesn't define
    ├── DocumentError                     rag.ingest.documents: a file that can't become passages
    ├── UndecodableText (ValueError)      rag.ingest.encodings: neither UTF-8 nor GB18030
    ├── BuildStopped                      rag.search.embedding_run: stopped between two batches
    ├── GenerationError                   rag.generate.llm: no usable reply after the retries
    │   (internal: _DeadlineExceeded, retried EmptyReplyError in rag.generate.retry)
    ├── MalformedVerdict (ValueError)     rag.check.judge: the judge's reply isn't its JSON
    │   (internal: _Unreadable in rag.check.arithmetic, a span it does not judge)
    ├── CodecError (ValueError)           rag.cache.codec: a cached value that can't be read
    ├── CacheUnavailable (RuntimeError)   rag.cache.answers: stats/clear could not reach the store
    ├── RedisUnavailable                  rag.storage.redis_guard: Redis skipped or failed now
    ├── VectorStoreUnavailable            rag.storage.vector_guard: Qdrant skipped or failed now
    ├── EvalInputError (ValueError)       rag.cli.eval_data: a corpus/queries line off format
    ├── CheckEvalInputError (ValueError)  rag.cli.check_eval: a checker record off format
    ├── BadQuestions (ValueError)         rag.cli.batch: a questions file line off format
    ├── ReportError                       rag.cli.report: why the report can't be made
    ├── SourceError                       rag.sync.source: a wiki page that can't be fetched now
    │   ├── Gone                          deleted or moved away: its copy is removed
    │   └── Forbidden                     no longer readable with these credentials: removed
    ├── HttpError                         rag.http.retry: an API (a wiki's, Feishu's) said no
    │   └── CredentialsRefused            rag.http.feishu: Feishu gives the app no token
    ├── SyncBusy                          rag.sync.sync_all: another sync of this INDEX_DIR runs
    ├── IndexUnavailable                  bot.root.services: the index can't be opened or built
    ├── TicketError (ValueError)          bot.review.records: a button value not ours
    ├── RecordError (ValueError)          bot.review.records: a stored decision we can't read
    ├── DeliveryFailed                    bot.review.desk: the asker's thread can't be reached
    ├── ValueTooLong (ValueError)         bot.values: a button value over the platform's limit
    ├── Unreachable                       bot.ports: the platform refused to deliver a message
    ├── FrameError (ValueError)           bot.feishu.frames: bytes that are not a frame
    └── Rejected                          bot.feishu.inbound: not a genuine, fresh request

Results are values, not exceptions: a refusal or an unverified draft raises nothing.
"""

from __future__ import annotations


class CitebotError(Exception):
    """Something of citebot's went wrong; the subclass and its message say what."""
