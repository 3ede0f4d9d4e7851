"""Settings of the answer core, parsed from a mapping the edge passes in.

Only the edges (``python -m rag``, ``python -m bot``) hand ``os.environ`` to
:func:`Settings.from_env`; everything below receives a ``Settings`` or plain arguments.
Errors say what is wrong and what to set.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path


class SettingsError(ValueError):
    """A setting has a value the program cannot use; the message says which and why."""


def _text(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name, "").strip()
    return value or None


def _number(env: Mapping[str, str], name: str, default: float, *, minimum: float) -> float:
    raw = _text(env, name)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        msg = f"{name}={raw!r} is not a number; set it to a number such as {default:g}"
        raise SettingsError(msg) from None
    if not math.isfinite(value) or value < minimum:
        msg = f"{name}={raw!r} must be a number >= {minimum:g}"
        raise SettingsError(msg)
    return value


def _integer(env: Mapping[str, str], name: str, default: int, *, minimum: int) -> int:
    value = _number(env, name, default, minimum=minimum)
    if not float(value).is_integer():
        msg = f"{name}={env[name]!r} must be a whole number"
        raise SettingsError(msg)
    return int(value)


DEFAULT_TOP_K = 5


@dataclass(frozen=True, slots=True)
class Settings:
    docs_dir: Path = Path("docs")
    index_dir: Path = Path(".citebot/index")
    top_k: int = DEFAULT_TOP_K
    min_score: float | None = None
    """Refusal threshold override; ``None``: the calibrated value next to the index, if any,
    else the shipped default."""
    embeddings: str = "e5"
    """``e5`` (bundled offline model), ``none`` (lexical only) or ``openai`` (EMBEDDINGS_*)."""
    embeddings_base_url: str | None = None
    embeddings_api_key: str | None = field(default=None, repr=False)
    embeddings_model: str | None = None
    llm_base_url: str | None = None
    llm_api_key: str | None = field(default=None, repr=False)
    llm_model: str | None = None
    llm_timeout_seconds: float = 30.0
    llm_max_attempts: int = 4
    llm_deadline_seconds: float = 90.0
    redis_url: str | None = field(default=None, repr=False)
    """May carry a password (``redis://:pw@host``); like the keys, kept out of ``repr``."""
    cache_ttl_seconds: int = 86400
    refusal_ttl_seconds: int = 3600
    log_questions: bool = False

    @property
    def llm_configured(self) -> bool:
        return self.llm_base_url is not None or self.llm_api_key is not None

    @property
    def chat_model_mode(self) -> str:
        return f"openai-compatible:{self.llm_model}" if self.llm_configured else "extractive"

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Settings:
        embeddings = (_text(env, "EMBEDDINGS") or "e5").lower()
        if embeddings not in {"e5", "none", "openai"}:
            msg = f"EMBEDDINGS={embeddings!r} is not known; use e5 (default), none or openai"
            raise SettingsError(msg)
        min_score_raw = _text(env, "MIN_SCORE")
        min_score = None
        if min_score_raw is not None:
            min_score = _number(env, "MIN_SCORE", 0.0, minimum=-math.inf)
        settings = cls(
            docs_dir=Path(_text(env, "DOCS_DIR") or "docs"),
            index_dir=Path(_text(env, "INDEX_DIR") or ".citebot/index"),
            top_k=_integer(env, "TOP_K", DEFAULT_TOP_K, minimum=1),
            min_score=min_score,
            embeddings=embeddings,
            embeddings_base_url=_text(env, "EMBEDDINGS_BASE_URL"),
            embeddings_api_key=_text(env, "EMBEDDINGS_API_KEY"),
            embeddings_model=_text(env, "EMBEDDINGS_MODEL"),
            llm_base_url=_text(env, "LLM_BASE_URL"),
            llm_api_key=_text(env, "LLM_API_KEY"),
            llm_model=_text(env, "LLM_MODEL"),
            llm_timeout_seconds=_number(env, "LLM_TIMEOUT_SECONDS", 30.0, minimum=0.1),
            llm_max_attempts=_integer(env, "LLM_MAX_ATTEMPTS", 4, minimum=1),
            llm_deadline_seconds=_number(env, "LLM_DEADLINE_SECONDS", 90.0, minimum=0.1),
            redis_url=_text(env, "REDIS_URL"),
            cache_ttl_seconds=_integer(env, "CACHE_TTL_SECONDS", 86400, minimum=1),
            refusal_ttl_seconds=_integer(env, "REFUSAL_TTL_SECONDS", 3600, minimum=1),
            log_questions=(_text(env, "LOG_QUESTIONS") or "").lower() in {"1", "true", "yes"},
        )
        if settings.llm_configured and settings.llm_model is None:
            msg = "LLM_MODEL is required when LLM_BASE_URL or LLM_API_KEY is set (e.g. gpt-4o-mini)"
            raise SettingsError(msg)
        if embeddings == "openai" and settings.embeddings_model is None:
            msg = (
                "EMBEDDINGS_MODEL is required when EMBEDDINGS=openai (e.g. text-embedding-3-small)"
            )
            raise SettingsError(msg)
        return settings
