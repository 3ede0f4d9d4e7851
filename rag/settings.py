"""Settings of the answer core, read from the environment by the edges only.

Only the edges (``python -m rag``, ``python -m bot``) call :meth:`Settings.from_env` (with
``os.environ``, after loading ``.env`` in development); everything below receives plain values
built from it in :mod:`rag.assemble`. pydantic-settings maps each field to its variable
(``top_k`` <- ``TOP_K``) and validates it; constructing ``Settings(...)`` directly reads only
its arguments, never the environment, so tests see exactly what they pass. Secrets are
:class:`~pydantic.SecretStr` (kept out of ``repr`` and logs). A bad value raises
:class:`SettingsError`: one line naming the variable, its value and what to set.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BeforeValidator, SecretStr, StringConstraints, ValidationError, model_validator
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)
from pydantic_settings.sources.utils import parse_env_vars

from rag.errors import CitebotError
from rag.storage.keys import DEFAULT_KEY_PREFIX, checked_redis_url, key_prefix_problem


class SettingsError(CitebotError, ValueError):
    """A setting has a value the program cannot use; the message says which and why."""


# --- reading a mapping of variables (the environment, or a test's dict) ---------------------


class _MappingSource(EnvSettingsSource):
    """pydantic-settings' environment source over a given mapping instead of ``os.environ``."""

    def __init__(self, settings_cls: type[BaseSettings], env: Mapping[str, str]) -> None:
        self._env = env
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return parse_env_vars(
            self._env, self.case_sensitive, self.env_ignore_empty, self.env_parse_none_str
        )


S = TypeVar("S", bound="EdgeSettings")


class EdgeSettings(BaseSettings):
    """Shared by :class:`Settings` and ``bot.settings.BotSettings``: env reading and errors."""

    model_config = SettingsConfigDict(
        frozen=True, extra="ignore", populate_by_name=True, hide_input_in_errors=True
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings,)  # the environment only through from_env (the edges)

    @model_validator(mode="before")
    @classmethod
    def _blank_is_unset(cls, data: Any) -> Any:
        """``NAME=`` or ``NAME="  "`` means "use the default", as in ``.env.example``."""
        if isinstance(data, dict):
            return {
                key: value.strip() if isinstance(value, str) else value
                for key, value in data.items()
                if not (isinstance(value, str) and not value.strip())
            }
        return data

    @classmethod
    def read(cls: type[S], env: Mapping[str, str], **given: Any) -> S:
        """Validated settings from ``env`` (plus ``given`` fields); raises SettingsError."""
        try:
            return cls(**_MappingSource(cls, env)(), **given)
        except ValidationError as error:
            raise _one_line(error) from None


def _one_line(error: ValidationError) -> SettingsError:
    first = error.errors()[0]
    cause = (first.get("ctx") or {}).get("error")
    if isinstance(cause, SettingsError | ValueError) and str(cause):
        return SettingsError(str(cause))
    name = str(first["loc"][0]).upper() if first["loc"] else "a setting"
    return SettingsError(f"{name}: {first['msg']}; set a valid value or unset it")


# --- value rules, each naming its variable -----------------------------------------------


def number(name: str, default: float, *, minimum: float, whole: bool = False) -> BeforeValidator:
    """A (whole) number >= ``minimum`` for ``name``, errors as ``NAME='x' must be ...``."""

    def check(raw: Any) -> float | int | None:
        if raw is None:
            return None  # only an optional field is given None
        try:
            value = float(raw)
        except (TypeError, ValueError):
            msg = f"{name}={raw!r} is not a number; set it to a number such as {default:g}"
            raise SettingsError(msg) from None
        if not math.isfinite(value) or value < minimum:
            msg = f"{name}={raw!r} must be a number >= {minimum:g}"
            raise SettingsError(msg)
        if whole and not value.is_integer():
            msg = f"{name}={raw!r} must be a whole number"
            raise SettingsError(msg)
        return int(value) if whole else value

    return BeforeValidator(check)


FLAG_ON = frozenset({"1", "true", "yes", "on"})
FLAG_OFF = frozenset({"0", "false", "no", "off"})


def flag(name: str) -> BeforeValidator:
    """The one grammar of every boolean setting (``name``): 1/true/yes/on or 0/false/no/off,
    any case. Anything else is an error, never a silent "off": ``LOG_QUESTIONS=on`` once read
    as off, and a typo must not quietly turn off a setting whose default is on."""

    def check(raw: Any) -> bool:
        if isinstance(raw, bool):
            return raw
        value = str(raw).strip().lower()
        if value in FLAG_ON:
            return True
        if value in FLAG_OFF:
            return False
        msg = f"{name}={raw!r} is neither on nor off; set on or off (or true/false, yes/no, 1/0)"
        raise SettingsError(msg)

    return BeforeValidator(check)


def _embeddings(raw: Any) -> str:
    value = str(raw).lower()
    if value not in {"e5", "none", "openai"}:
        msg = f"EMBEDDINGS={value!r} is not known; use e5 (default), none or openai"
        raise SettingsError(msg)
    return value


def _key_prefix(raw: Any) -> str:
    value = str(raw)
    problem = key_prefix_problem(value)
    if problem:
        msg = f"REDIS_KEY_PREFIX={value!r} {problem}; set one such as citebot-staging: or unset it"
        raise SettingsError(msg)
    return value


def secret(value: SecretStr | None) -> str | None:
    """The secret's text for the one call that needs it (a client's constructor)."""
    return None if value is None else value.get_secret_value()


DEFAULT_TOP_K = 5
CACHE_TTL_SECONDS = 86400
"""How long a passed answer is cached (CACHE_TTL_SECONDS): the one default, read by the caches."""
REFUSAL_TTL_SECONDS = 3600
"""How long a refusal is cached (REFUSAL_TTL_SECONDS): shorter, a document may be added."""


class Settings(EdgeSettings):
    docs_dir: Path = Path("docs")
    index_dir: Path = Path(".citebot/index")
    top_k: Annotated[int, number("TOP_K", DEFAULT_TOP_K, minimum=1, whole=True)] = DEFAULT_TOP_K
    min_score: Annotated[float | None, number("MIN_SCORE", -0.2, minimum=-math.inf)] = None
    """Refusal threshold override; ``None``: the calibrated value next to the index, if any,
    else the shipped default (its error's example, -0.2, is near the gates' thresholds)."""
    embeddings: Annotated[Literal["e5", "none", "openai"], BeforeValidator(_embeddings)] = "e5"
    """``e5`` (bundled offline model), ``none`` (lexical only) or ``openai`` (EMBEDDINGS_*)."""
    embeddings_base_url: str | None = None
    embeddings_api_key: SecretStr | None = None
    embeddings_model: str | None = None
    llm_base_url: str | None = None
    llm_api_key: SecretStr | None = None
    llm_model: str | None = None
    llm_timeout_seconds: Annotated[float, number("LLM_TIMEOUT_SECONDS", 30.0, minimum=0.1)] = 30.0
    llm_max_attempts: Annotated[int, number("LLM_MAX_ATTEMPTS", 4, minimum=1, whole=True)] = 4
    llm_deadline_seconds: Annotated[float, number("LLM_DEADLINE_SECONDS", 90.0, minimum=0.1)] = 90.0
    llm_max_tokens: Annotated[int, number("LLM_MAX_TOKENS", 1500, minimum=64, whole=True)] = 1500
    """Completion tokens one answer (or follow-up rewrite) may use: a model that never stops is
    cut there, and its cut draft goes to review (``reply_cut``) instead of to the asker."""
    cite_sentences: Annotated[bool, flag("CITE_SENTENCES")] = False
    """With a chat model: sources are shown numbered by sentence, the model cites ``[2.3]`` and
    the checker checks each claim against the sentence it points at (:mod:`rag.check.pointers`).
    Askers still see ``[2]``. Off by default: with pointers as good as a model could write
    them the checker caught 99.0 % of faulty answers instead of 98.7 %, at 5.1 % false alarms
    instead of 0.4 % (bench/pointer_checker.py, bench/README.md)."""
    redis_url: Annotated[SecretStr | None, BeforeValidator(checked_redis_url)] = None
    """May carry a password (``redis://:pw@host``); like the keys, kept out of ``repr``."""
    redis_key_prefix: Annotated[str, BeforeValidator(_key_prefix)] = DEFAULT_KEY_PREFIX
    """Every Redis key the bot and the CLI write or read starts with it (:mod:`rag.storage.keys`):
    two deployments, or a test suite, share one database without seeing each other's data."""
    cache_ttl_seconds: Annotated[
        int, number("CACHE_TTL_SECONDS", CACHE_TTL_SECONDS, minimum=1, whole=True)
    ] = CACHE_TTL_SECONDS
    refusal_ttl_seconds: Annotated[
        int, number("REFUSAL_TTL_SECONDS", REFUSAL_TTL_SECONDS, minimum=1, whole=True)
    ] = REFUSAL_TTL_SECONDS
    log_questions: Annotated[bool, flag("LOG_QUESTIONS")] = False
    checker_model_judge: Annotated[bool, flag("CHECKER_MODEL_JUDGE")] = False
    """Also ask the chat model whether each cited sentence is supported (see rag.check.judge);
    needs LLM_* set. Off by default: it costs one model call per checked answer."""
    checker_judge_max_tokens: Annotated[
        int, number("CHECKER_JUDGE_MAX_TOKENS", 2000, minimum=64, whole=True)
    ] = 2000
    """Completion tokens one judge call may use: a model that rambles instead of giving the
    verdicts stops there (its answer goes to review) instead of running to LLM_TIMEOUT_SECONDS.
    Reasoning models count their reasoning against it."""
    scopes_file: Path | None = None
    """SCOPES_FILE: who may see which documents (:mod:`rag.scopes.file`); ``None``: everyone."""
    refresh_seconds: Annotated[float, number("REFRESH_SECONDS", 60.0, minimum=0.0)] = 60.0
    """How often a running bot scans DOCS_DIR for changes; 0 turns the scan off."""
    sources_file: Path | None = None
    """SOURCES_FILE: the wikis whose documents are synced into DOCS_DIR (:mod:`rag.sync`);
    ``None``: DOCS_DIR alone."""
    sync_seconds: Annotated[float, number("SYNC_SECONDS", 900.0, minimum=0.0)] = 900.0
    """How often a running bot syncs SOURCES_FILE's sources; 0 turns the sync off."""
    vector_store: Literal["local", "qdrant"] = "local"
    """Where the passages' vectors live: ``local`` (in this process, under INDEX_DIR) or
    ``qdrant`` (a Qdrant server or cluster at QDRANT_URL, shared by every process; QDRANT_PATH:
    qdrant-client's local mode, one process, for tests and trials)."""
    qdrant_url: str | None = None
    qdrant_path: Path | None = None
    qdrant_api_key: SecretStr | None = None
    qdrant_collection: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_-]{1,255}$")] = (
        "citebot"
    )
    retention_days: Annotated[int, number("RETENTION_DAYS", 30, minimum=1, whole=True)] = 30
    """How long question records for ``rag report`` are kept."""
    record_questions: Annotated[bool, flag("RECORD_QUESTIONS")] = True
    """Keep the texts of refused and unverified questions for ``rag report``."""
    stale_after_days: Annotated[int, number("STALE_AFTER_DAYS", 365, minimum=0, whole=True)] = 365
    """``rag report`` lists cited documents not updated for this many days; 0 = off."""

    @property
    def llm_configured(self) -> bool:
        return self.llm_base_url is not None or self.llm_api_key is not None

    @property
    def chat_model_mode(self) -> str:
        return f"openai-compatible:{self.llm_model}" if self.llm_configured else "extractive"

    def check_complete(self) -> None:
        """What only the variables together tell (run by :meth:`from_env`; a test may build
        a partial ``Settings(...)`` on purpose)."""
        if self.llm_configured and self.llm_model is None:
            msg = "LLM_MODEL is required when LLM_BASE_URL or LLM_API_KEY is set (e.g. gpt-4o-mini)"
            raise SettingsError(msg)
        if self.checker_model_judge and not self.llm_configured:
            msg = "CHECKER_MODEL_JUDGE=on needs a chat model: set LLM_BASE_URL and LLM_MODEL"
            raise SettingsError(msg)
        if self.embeddings == "openai" and self.embeddings_model is None:
            msg = (
                "EMBEDDINGS_MODEL is required when EMBEDDINGS=openai (e.g. text-embedding-3-small)"
            )
            raise SettingsError(msg)

        self._check_vector_store()

    def _check_vector_store(self) -> None:
        places = [("QDRANT_URL", self.qdrant_url), ("QDRANT_PATH", self.qdrant_path)]
        where = [name for name, value in places if value is not None]
        if self.vector_store == "qdrant" and len(where) != 1:
            msg = (
                "VECTOR_STORE=qdrant needs exactly one of QDRANT_URL (a server, e.g. "
                "http://localhost:6333) or QDRANT_PATH (a folder: local mode, one process)"
                + ("; both are set" if where else "")
            )
            raise SettingsError(msg)
        if self.vector_store == "local" and where:
            msg = f"{where[0]} is set but VECTOR_STORE is local; set VECTOR_STORE=qdrant to use it"
            raise SettingsError(msg)

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Settings:
        """The settings ``env`` describes; raises :class:`SettingsError` on a bad value."""
        settings = cls.read(env)
        settings.check_complete()
        return settings
