"""What was asked, for the people who keep the documents (``python -m rag report``).

records   one record per question and per review decision (what is kept, and when a text)
store     where records live: Redis when REDIS_URL is set (bounded by RETENTION_DAYS),
          else a JSON-lines file under INDEX_DIR
groups    unanswered questions grouped by meaning with the bundled embedder
summary   records -> the report's numbers (one dict: ``--json`` prints it as is)
render    the same numbers as text and CSV; html: one self-contained page with charts
"""
