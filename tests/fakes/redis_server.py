"""A redis-server of the test's own, on a free port, that the test may kill and restart.

Persistence is off (``--save "" --appendonly no``), so a restart comes back empty — like a
Redis that was flushed or replaced — which is the harder case for dedupe and review guards.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
from dataclasses import dataclass, field

import pytest

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
NO_PERSISTENCE = ("--save", "", "--appendonly", "no")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class OwnRedis:
    port: int = field(default_factory=free_port)
    password: str | None = None
    debug: bool = False
    """Allow DEBUG SLEEP and friends (from 127.0.0.1), to play a stalled Redis."""
    process: subprocess.Popen[str] | None = None

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    def start(self) -> None:
        if not shutil.which(REDIS_SERVER):
            # A failure, never a skip: a suite that skips its outage tests when the binary is
            # missing passes without testing them (scripts/test installs or requires it).
            pytest.fail(
                f"no redis-server at {REDIS_SERVER}: this test starts, kills and restarts its own"
                " (Debian/Ubuntu: apt-get install redis-server; scripts/test does it in CI)",
                pytrace=False,
            )
        auth = ("--requirepass", self.password) if self.password else ()
        debug = ("--enable-debug-command", "local") if self.debug else ()
        options = (*NO_PERSISTENCE, *auth, *debug)
        self.process = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", *options],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        for line in self.process.stdout:  # ready when it says so: no polling, no sleeps
            if "Ready to accept connections" in line:
                return
        msg = f"redis-server on port {self.port} exited with {self.process.wait()}"
        raise RuntimeError(msg)

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            if self.process.stdout is not None:
                self.process.stdout.close()
            self.process = None
