"""A threaded server on a unix socket only this user may connect to: the bridge and the API proxy."""
from __future__ import annotations

import os
import socketserver
import threading


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def get_request(self):  # http.server's handlers want an address tuple; a unix peer has none
        conn, _ = super().get_request()
        return conn, ("local", 0)


class UnixSocketServer:
    """Serves `handler` (a socketserver handler class) on `path` from a thread until `stop()`."""

    def __init__(self, path: str | os.PathLike, handler: type, name: str) -> None:
        self.path = str(path)
        self.handler = handler
        self.name = name
        self._server: _Server | None = None

    def start(self) -> None:
        self._server = _Server(self.path, self.handler)
        os.chmod(self.path, 0o600)
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1},
                         name=self.name, daemon=True).start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        try:
            os.unlink(self.path)
        except OSError:
            pass
