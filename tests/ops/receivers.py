"""Local stand-ins on 127.0.0.1: an alert receiver, a closed port, a port that never answers."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any


@contextmanager
def webhook_receiver() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """``(url, received JSON bodies)`` of an HTTP server running in a thread."""
    received: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            received.append(json.loads(self.rfile.read(length)))
            self.send_response(204)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet."""

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook", received
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


# Bound, never listening, never released: connections to them are refused at once, and no
# other listener (a Spark or py4j port opened later in the session) can take them over. A
# released port could be reused by a server that accepts and never answers.
_HELD_PORTS: list[socket.socket] = []


def closed_port() -> int:
    """A local port that refuses connections for the rest of the test session."""
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    holder.bind(("127.0.0.1", 0))
    _HELD_PORTS.append(holder)
    port: int = holder.getsockname()[1]
    return port


@contextmanager
def silent_listener() -> Iterator[int]:
    """A local port that accepts connections and never answers (not an Oracle listener)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        yield server.getsockname()[1]
