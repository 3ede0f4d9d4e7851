"""Documents that live in a wiki, copied into DOCS_DIR so they are answered like any file.

    SOURCES_FILE (sources_file)  ->  a Source per entry (confluence, feishu_wiki)
    sync (run): changed since the cursor + every live id -> fetch as Markdown -> files
    (files: DOCS_DIR/<kind>/<place>/<title>.md with front matter) -> the index refresh

A source is one small interface (:mod:`.source`); the sync keeps its cursor and what it wrote
under INDEX_DIR (:mod:`.state`) and never touches a file it did not write.
"""
