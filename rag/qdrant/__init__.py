"""``VECTOR_STORE=qdrant``: the passages' vectors in a Qdrant collection shared by every process.

Imported only when that is configured (qdrant-client takes a second to import):
:mod:`~rag.qdrant.connection` (where, clients, failure policy), :mod:`~rag.qdrant.points` (ids,
payload), :mod:`~rag.qdrant.store` (the build side: send what changed),
:mod:`~rag.qdrant.search` (the search side) and :mod:`~rag.qdrant.scope_filter` (scopes as
filters inside the engine). The seam they fill is :mod:`rag.search.vectors`.
"""
