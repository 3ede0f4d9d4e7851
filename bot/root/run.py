"""``python -m bot``: read and validate the settings, then compose the bot and run it.

The settings come first and alone: this module imports nothing heavy, so a typo in ``.env``
is reported (one line on stderr, exit status 2) in well under a second, before the index,
embeddings, the chat model and the checker's segmenter are loaded by :mod:`bot.root.compose`.
"""

from __future__ import annotations

import logging
import os
import sys

from dotenv import load_dotenv

from bot.root.config import read_config
from rag import SettingsError


def main() -> int:
    load_dotenv()
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR", "-").strip():
        # .env.example's blank line means "unset", but prometheus-client reads the variable
        # itself, at import: present and empty, it would write its files to the working folder.
        del os.environ["PROMETHEUS_MULTIPROC_DIR"]
    try:
        config = read_config(os.environ)
        # A server's log lines are its record; in the console chat they share the terminal with
        # the answers (an INFO line once landed mid-chat), and what an operator needs there is
        # printed as lines of its own: only warnings and errors are logged.
        logging.basicConfig(
            level=logging.WARNING if config.console else logging.INFO,
            format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        )
        if config.console:  # seconds of imports, then of reading a new folder: say so first
            print(f"Opening the index of {config.bot.rag.docs_dir}/ …", file=sys.stderr, flush=True)
        # The heavy half is imported only once the settings hold: that import is its cost.
        from bot.root.compose import run

        return run(config)
    except SettingsError as error:  # also a setting only the services can check
        print(f"citebot: {error}", file=sys.stderr)
        return 2
