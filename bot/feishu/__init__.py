"""The Feishu / Lark edge: events and card callbacks in, Open API calls out.

The only package of bot/ that knows Feishu's wire formats. It uses no Feishu SDK: the few Open
API endpoints needed (:mod:`bot.feishu.api`) over the Open API client it shares with the wiki
sync (``rag.FeishuOpenApi``: token, retries, rates), and ``cryptography`` for the
event encryption (:mod:`bot.feishu.inbound`) — measured against ``lark-oapi`` in bench/README.md.
"""
