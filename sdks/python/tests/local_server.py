"""A real HTTP/1.1 keep-alive server on 127.0.0.1 that counts the connections a client holds open.

The leak tests need a real socket: a mock transport has no connection to leak. The server answers
every request with a small JSON body and never closes a connection first, so any connection still
counted after a client is closed is one the client leaked.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like a real deployment behind a load balancer
    server: CountingServer

    def setup(self) -> None:
        super().setup()
        self.server.opened(+1)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.opened(-1)

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        if length:
            self.rfile.read(length)
        body = json.dumps({"orgId": "org_9f2c4a7b1d3e", "name": "Local", "slug": "local"}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = _answer
    do_POST = _answer

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass


class CountingServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self._lock = threading.Lock()
        self._open = 0
        self.accepted = 0
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"

    def opened(self, delta: int) -> None:
        with self._lock:
            self._open += delta
            if delta > 0:
                self.accepted += 1

    @property
    def open_connections(self) -> int:
        with self._lock:
            return self._open

    def wait_for_open_connections(self, expected: int, timeout: float = 5.0) -> int:
        """The count once it equals ``expected`` (or whatever it is when ``timeout`` runs out): the
        server notices a closed socket only when its handler thread reads EOF."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.open_connections == expected:
                return expected
            time.sleep(0.01)
        return self.open_connections

    def __enter__(self) -> CountingServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join(timeout=5)
