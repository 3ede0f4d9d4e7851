"""The base of every record citebot writes outside the process (Redis values, index files).

Each is a pydantic model with a version field ``v``: validation is strict (no "0.8" for a
number, no ``true`` for a count, no infinities), a record of another version is refused, not
guessed at, and a record that does not validate is one line naming the field
(:func:`validation_error`) that its reader turns into "not stored" — never a crash.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, ValidationError


def check_version(version: int, readable: int) -> int:
    if version != readable:
        msg = f"layout version {version} is not readable (this code reads {readable})"
        raise ValueError(msg)
    return version


def validation_error(where: str, error: ValidationError) -> str:
    """The first problem of ``error`` as one line: ``value.hits.0.score: Input should be ...``."""
    first = error.errors()[0]
    path = ".".join(str(part) for part in (where, *first["loc"]))
    more = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
    return f"{path}: {first['msg']}{more}"


class Record(BaseModel):
    """Strict, immutable, finite numbers: what every stored record shares."""

    model_config = ConfigDict(strict=True, frozen=True, allow_inf_nan=False)
