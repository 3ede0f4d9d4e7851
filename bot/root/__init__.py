"""The composition root of ``python -m bot``: the only place that knows every part.

Read the modules in the order a start-up runs them::

    config.py    the environment -> Config (Slack's and Feishu's settings, SCOPES_FILE), validated
    services.py  Config -> Services: the metrics (metering.py), the one Redis client (one
                 failure policy), reviewed answers, the answer pipeline that follows DOCS_DIR
                 (its observer the metrics'), the question records
    console.py   neither SLACK_BOT_TOKEN nor FEISHU_APP_ID: the local console chat over them
    slack.py     SLACK_BOT_TOKEN: the Bolt app (HTTP, or Socket Mode with SLACK_APP_TOKEN), its
                 review desk in REVIEW_CHANNEL, the weekly digest; built at startup
    web.py       the aiohttp app: POST /slack/events, POST /feishu/events (bot/feishu/app.py),
                 GET /healthz, GET /metrics; everything opened at startup is closed at
                 cleanup, in reverse
    run.py       main() is ``python -m bot``: the settings first (nothing heavy imported), then
    compose.py   compose(env) does all of the above (tests and benchmarks call it too) and
                 run(config) chats in the console or serves

What a test may swap (the pipeline, the retry waits, the question records, the review desk) is
listed in :class:`bot.root.services.Seams`; ``python -m bot`` uses its defaults.
"""
