"""``python -m bot``: the Slack and/or Feishu bot, or the local console chat.

The composition root is the package :mod:`bot.root` (read its modules in start-up order).
"""

from __future__ import annotations

import sys

from bot.root.run import main

if __name__ == "__main__":
    sys.exit(main())
