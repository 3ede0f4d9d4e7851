"""Fixtures of the search tests."""

from __future__ import annotations

from tests.fakes.qdrant_fixture import qdrant_vector_store, vector_store

__all__ = ["qdrant_vector_store", "vector_store"]  # re-exported so pytest finds them
