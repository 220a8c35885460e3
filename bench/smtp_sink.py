"""A tiny SMTP server on loopback that keeps what it is sent: a stand-in for the mail provider in benchmarks.

It speaks just enough SMTP for Django's smtp backend (EHLO/HELO, MAIL, RCPT, DATA, RSET, NOOP, QUIT), keeps
each message, and keeps a transport log: every command line and reply, as a mail server's log would show them.
Standard library only (asyncio), in a thread of the process that starts it.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field


@dataclass
class Message:
    sender: str
    recipients: list[str]
    data: str


@dataclass
class SmtpSink:
    host: str = "127.0.0.1"
    port: int = 0
    messages: list[Message] = field(default_factory=list)
    transport_log: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="smtp-sink", daemon=True)
        self._lock = threading.Lock()

    def start(self) -> SmtpSink:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the SMTP sink did not start")
        return self

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    @property
    def url(self) -> str:
        return f"smtp://{self.host}:{self.port}"

    def snapshot(self) -> tuple[list[Message], list[str]]:
        with self._lock:
            return list(self.messages), list(self.transport_log)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._session, self.host, self.port))
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()
        server.close()

    def _log(self, line: str) -> None:
        with self._lock:
            self.transport_log.append(line)

    async def _session(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        async def reply(text: str) -> None:
            self._log(f"S: {text}")
            writer.write(f"{text}\r\n".encode())
            await writer.drain()

        sender, recipients = "", []
        await reply("220 sink ESMTP ready")
        try:
            while line := await reader.readline():
                command = line.decode("utf-8", "replace").rstrip("\r\n")
                self._log(f"C: {command}")
                verb = command[:4].upper()
                if verb in ("EHLO", "HELO"):
                    await reply("250 sink")
                elif verb == "MAIL":
                    sender, recipients = command.partition(":")[2].strip(" <>"), []
                    await reply("250 OK")
                elif verb == "RCPT":
                    recipients.append(command.partition(":")[2].strip(" <>"))
                    await reply("250 OK")
                elif verb == "DATA":
                    await reply("354 End data with <CR><LF>.<CR><LF>")
                    body = await reader.readuntil(b"\r\n.\r\n")
                    text = body[:-5].decode("utf-8", "replace").replace("\r\n..", "\r\n.")
                    with self._lock:
                        self.messages.append(Message(sender, recipients, text))
                    self._log(f"(message of {len(body)} bytes from {sender} to {', '.join(recipients)})")
                    await reply("250 OK queued")
                elif verb == "QUIT":
                    await reply("221 Bye")
                    break
                else:  # RSET, NOOP and anything else: accepted, nothing to do
                    await reply("250 OK")
        finally:
            writer.close()
