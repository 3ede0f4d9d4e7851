"""Documents that live in a wiki, copied into DOCS_DIR so they are answered like any file.

    sources_file   SOURCES_FILE -> validated sources, their secrets from the environment
    sync_all       every source (or one) under one lock  ->  run: one source's sync
    source         the interface a source implements: changed(cursor), live(), fetch(entry)
    confluence     Cloud (REST v2) and Data Center (REST v1) -> confluence_markdown (storage
                   XHTML, read by xhtml), over rag/http/ (JSON, retries on 429/5xx)
    feishu         Feishu / Lark wiki spaces -> feishu_markdown (docx blocks), over the Open
                   API client the bot uses too (rag/http/feishu.py: token, rate limits, retries)
    files          DOCS_DIR/<kind>/<place>/<title>.md with front matter, written atomically
    state          INDEX_DIR/sync/<source>.json: cursor, files written, the last sync

The sync never touches a file it did not write; the index refresher (or ``rag index``)
indexes what it wrote like any other change of DOCS_DIR. guide/sources.md is the admin's view.
"""
