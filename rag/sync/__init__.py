"""Documents that live in a wiki, copied into DOCS_DIR so they are answered like any file.

    sources_file   SOURCES_FILE -> validated sources, their secrets from the environment
    sync_all       every source (or one) under one lock  ->  run: one source's sync
    source         the interface a source implements: changed(cursor), live(), fetch(entry)
    confluence     Cloud (REST v2) and Data Center (REST v1) -> confluence_markdown (storage
                   XHTML, read by xhtml)
    feishu         Feishu / Lark wiki spaces (tenant token) -> feishu_markdown (docx blocks)
    http           JSON over HTTP with tenacity retries on 429/5xx, honouring the server's wait
    files          DOCS_DIR/<kind>/<place>/<title>.md with front matter, written atomically
    state          INDEX_DIR/sync/<source>.json: cursor, files written, the last sync

The sync never touches a file it did not write; the index refresher (or ``rag index``)
indexes what it wrote like any other change of DOCS_DIR. guide/sources.md is the admin's view.
"""
