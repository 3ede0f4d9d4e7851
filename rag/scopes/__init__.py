"""Who may see which documents: scope sets (:mod:`.sets`), their globs (:mod:`.globs`) and
SCOPES_FILE (:mod:`.file`). Retrieval applies a set through :mod:`rag.search.scoped`."""
