"""TCP switches for the fault matrix: a loopback port in front of one outside service (the provider's main interface,
MetaSearch, the payment service, the mail server, PostgreSQL) that is turned off and on again.

Off is what a stopped service looks like from the storefront: every open connection is cut and new ones are refused
(the port is closed), so a request either never reaches the service or loses its answer. On, bytes are passed both
ways unchanged. Threads and sockets only (standard library).
"""

from __future__ import annotations

import socket
import threading
from contextlib import suppress


class Switch:
    """A port that forwards to `target_port` on loopback while on."""

    def __init__(self, name: str, target_port: int) -> None:
        self.name = name
        self.target = ("127.0.0.1", target_port)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = int(probe.getsockname()[1])
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None
        self._open: set[socket.socket] = set()

    @property
    def on(self) -> bool:
        return self._listener is not None

    def start(self) -> Switch:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(128)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), name=f"switch-{self.name}", daemon=True).start()
        return self

    def stop(self) -> None:
        """Cut every connection and refuse new ones."""
        listener, self._listener = self._listener, None
        if listener is not None:
            with suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        with self._lock:
            cut, self._open = self._open, set()
        for sock in cut:
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # stopped
            try:
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            with self._lock:
                if self._listener is not listener:  # stopped meanwhile
                    client.close()
                    upstream.close()
                    return
                self._open.update((client, upstream))
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
            with self._lock:
                self._open.discard(source)
                self._open.discard(sink)
            source.close()
