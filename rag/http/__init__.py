"""JSON over HTTP for the APIs citebot calls itself, retried where retrying can help.

    retry      what is worth another attempt (connection errors, timeouts, HTTP 5xx, rate
               limits) and how long to wait: the server's own wait, capped, else a backoff
    json_api   one aiohttp session, a base URL, decoded JSON bodies, errors as HttpError
    feishu     the Feishu / Lark Open API: tenant access token, the gateway's rate-limit
               waits, a per-chat send rate; used by the Feishu bot (bot/feishu/) and the wiki
               sync (rag/sync/feishu.py) alike

Errors: :class:`~rag.http.retry.HttpError` (an HTTP error status, or an API's own error
``code`` in a 200 answer), and its :class:`~rag.http.feishu.CredentialsRefused` when Feishu
will not give the app a token; aiohttp's and asyncio's errors when nothing answered
(:data:`~rag.http.retry.HTTP_ERRORS` names them all).
"""
