"""Exit 0 when a Redis answers PING at the URL given, 1 otherwise (used by scripts/test)."""

import sys

import redis

try:
    redis.Redis.from_url(sys.argv[1], socket_connect_timeout=0.5, socket_timeout=0.5).ping()
except redis.RedisError:
    sys.exit(1)
