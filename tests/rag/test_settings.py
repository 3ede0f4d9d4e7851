"""Core settings: the environment's names and defaults, and one line per bad value."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.settings import Settings, SettingsError, secret


def test_nothing_set_gives_the_documented_defaults() -> None:
    settings = Settings.from_env({})
    assert (settings.docs_dir, settings.index_dir) == (Path("docs"), Path(".citebot/index"))
    assert (settings.top_k, settings.min_score, settings.embeddings) == (5, None, "e5")
    assert (settings.cache_ttl_seconds, settings.refusal_ttl_seconds) == (86400, 3600)
    assert (settings.llm_max_attempts, settings.llm_deadline_seconds) == (4, 90.0)
    assert (settings.redis_url, settings.redis_key_prefix) == (None, "citebot:")
    assert settings.chat_model_mode == "extractive"


def test_values_are_read_and_blank_means_default() -> None:
    settings = Settings.from_env(
        {
            "TOP_K": " 7 ",
            "DOCS_DIR": "  ",
            "EMBEDDINGS": "NONE",
            "MIN_SCORE": "-0.5",
            "LOG_QUESTIONS": "Yes",
            "LLM_BASE_URL": "http://127.0.0.1:9/v1",
            "LLM_MODEL": "qwen",
            "REDIS_KEY_PREFIX": " citebot-staging: ",
            "UNRELATED": "ignored",
        }
    )
    assert (settings.top_k, settings.docs_dir, settings.embeddings) == (7, Path("docs"), "none")
    assert (settings.min_score, settings.log_questions) == (-0.5, True)
    assert settings.redis_key_prefix == "citebot-staging:"
    assert Settings.from_env({"REDIS_KEY_PREFIX": ""}).redis_key_prefix == "citebot:"
    assert settings.chat_model_mode == "openai-compatible:qwen"


def test_building_settings_directly_never_reads_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TOP_K", "9")
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:1/0")
    assert Settings().top_k == 5
    assert Settings().redis_url is None


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"TOP_K": "0"}, "TOP_K='0' must be a number >= 1"),
        ({"TOP_K": "many"}, "TOP_K='many' is not a number; set it to a number such as 5"),
        ({"LLM_MAX_ATTEMPTS": "1.5"}, "LLM_MAX_ATTEMPTS='1.5' must be a whole number"),
        ({"LLM_TIMEOUT_SECONDS": "0"}, "LLM_TIMEOUT_SECONDS='0' must be a number >= 0.1"),
        ({"MIN_SCORE": "nan"}, "MIN_SCORE='nan' must be a number"),
        # Relevance scores centre on 0: the example is a plausible threshold, not 0 or 0.5.
        (
            {"MIN_SCORE": "high"},
            "MIN_SCORE='high' is not a number; set it to a number such as -0.2",
        ),
        (
            {"REDIS_URL": "notaurl"},
            "REDIS_URL='notaurl' is not a Redis URL; set one such as redis:",
        ),
        ({"REDIS_URL": "localhost:6379"}, "REDIS_URL='localhost:6379' is not a Redis URL"),
        ({"REDIS_URL": "http://:pw@cache:6379"}, "REDIS_URL='…@cache:6379' is not a Redis URL"),
        ({"EMBEDDINGS": "bert"}, "EMBEDDINGS='bert' is not known; use e5 (default), none or"),
        ({"LLM_API_KEY": "sk-1"}, "LLM_MODEL is required when LLM_BASE_URL or LLM_API_KEY"),
        ({"EMBEDDINGS": "openai"}, "EMBEDDINGS_MODEL is required when EMBEDDINGS=openai"),
        (
            {"REDIS_KEY_PREFIX": "citebot staging:"},
            "REDIS_KEY_PREFIX='citebot staging:' must not contain spaces or control characters; "
            "set one such as citebot-staging: or unset it",
        ),
    ],
)
def test_a_bad_value_is_one_line_naming_it(env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError) as caught:
        Settings.from_env(env)
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_secrets_stay_out_of_repr_and_come_out_where_used() -> None:
    settings = Settings.from_env(
        {"LLM_API_KEY": "sk-hidden", "LLM_MODEL": "m", "REDIS_URL": "redis://:pw9@h:6379/0"}
    )
    assert "sk-hidden" not in repr(settings)
    assert "pw9" not in repr(settings)
    assert secret(settings.redis_url) == "redis://:pw9@h:6379/0"
    assert secret(None) is None


def test_the_vector_store_is_local_unless_qdrant_is_named_with_one_place() -> None:
    assert Settings.from_env({}).vector_store == "local"
    settings = Settings.from_env(
        {"VECTOR_STORE": "qdrant", "QDRANT_URL": "http://q:6333", "QDRANT_API_KEY": "s3cret-key"}
    )
    assert (settings.vector_store, settings.qdrant_url, settings.qdrant_collection) == (
        "qdrant",
        "http://q:6333",
        "citebot",
    )
    assert "s3cret-key" not in repr(settings)
    local = Settings.from_env({"VECTOR_STORE": "qdrant", "QDRANT_PATH": "/tmp/q"})
    assert local.qdrant_path == Path("/tmp/q")


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"VECTOR_STORE": "milvus"}, "VECTOR_STORE: Input should be 'local' or 'qdrant'"),
        ({"VECTOR_STORE": "qdrant"}, "needs exactly one of QDRANT_URL"),
        (
            {"VECTOR_STORE": "qdrant", "QDRANT_URL": "http://q", "QDRANT_PATH": "/q"},
            "both are set",
        ),
        ({"QDRANT_URL": "http://q"}, "QDRANT_URL is set but VECTOR_STORE is local"),
        ({"QDRANT_COLLECTION": "a/b"}, "QDRANT_COLLECTION: String should match pattern"),
    ],
)
def test_a_vector_store_setting_that_cannot_work_is_one_line(
    env: dict[str, str], message: str
) -> None:
    with pytest.raises(SettingsError, match=message) as raised:
        Settings.from_env(env)
    assert "\n" not in str(raised.value)
