"""The Feishu / Lark edge: events and card callbacks in, Open API calls out.

The only package that knows Feishu's wire formats. It uses no Feishu SDK: an aiohttp client
for the few Open API endpoints needed (:mod:`bot.feishu.api`) and ``cryptography`` for the
event encryption (:mod:`bot.feishu.inbound`) — measured against ``lark-oapi`` in bench/README.md.
"""
