"""Local receivers for the notify tests, each a thread in the test process.

:class:`WebhookReceiver` is an HTTP server on loopback that checks EVERY request's signature
with the recipe of docs/webhooks.md (``notify.signing.verify`` is the same code) and records
it; answers can be scripted (a status per request, or hold a request open until released).
:class:`SmtpSink` is a minimal SMTP server that keeps every message it is sent.
"""

from __future__ import annotations

import json
import socketserver
import threading
from collections import deque
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from notify import signing


@dataclass
class Received:
    delivery_id: str
    event: str
    body: dict[str, Any]
    verified: bool
    status: int


@dataclass
class WebhookReceiver:
    secrets: dict[str, str] = field(default_factory=dict)  # path -> secret
    requests: list[Received] = field(default_factory=list)
    statuses: deque[int] = field(default_factory=deque)  # scripted answers, then 200
    hold_first: bool = False  # keep the first request open until ``release`` is set
    got_request: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                secret = receiver.secrets.get(self.path, "")
                verified = signing.verify(
                    secret,
                    raw,
                    self.headers.get(signing.TIMESTAMP_HEADER, ""),
                    self.headers.get(signing.SIGNATURE_HEADER, ""),
                )
                with receiver.lock:
                    first = not receiver.requests
                    status = receiver.statuses.popleft() if receiver.statuses else 200
                    receiver.requests.append(
                        Received(
                            delivery_id=self.headers.get(signing.DELIVERY_HEADER, ""),
                            event=self.headers.get(signing.EVENT_HEADER, ""),
                            body=json.loads(raw),
                            verified=verified,
                            status=status,
                        )
                    )
                receiver.got_request.set()
                if first and receiver.hold_first:
                    receiver.release.wait(60)
                if not verified:
                    status = 401
                try:
                    self.send_response(status)
                    if 300 <= status < 400:  # a redirect a sender must not follow
                        self.send_header("Location", "/redirected")
                    self.send_header("Content-Length", "2")
                    self.end_headers()
                    self.wfile.write(b"ok")
                except OSError:
                    pass  # the sender died while we held the request

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def stop(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


class SmtpSink:
    """Just enough SMTP (EHLO/HELO, MAIL, RCPT, DATA, RSET, NOOP, QUIT) to accept mail."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.envelopes: list[tuple[str, list[str]]] = []
        sink = self

        class Handler(socketserver.StreamRequestHandler):
            def reply(self, line: str) -> None:
                self.wfile.write(line.encode() + b"\r\n")
                self.wfile.flush()

            def handle(self) -> None:
                self.reply("220 sink ESMTP")
                sender, rcpts = "", list[str]()
                while True:
                    line = self.rfile.readline()
                    if not line:
                        return
                    cmd = line.decode(errors="replace").strip()
                    verb = cmd.split(" ", 1)[0].upper()
                    if verb in ("EHLO", "HELO"):
                        self.reply("250 sink")
                    elif verb == "MAIL":
                        sender, rcpts = cmd.split(":", 1)[1].strip(), list[str]()
                        self.reply("250 OK")
                    elif verb == "RCPT":
                        rcpts.append(cmd.split(":", 1)[1].strip().strip("<>"))
                        self.reply("250 OK")
                    elif verb == "DATA":
                        self.reply("354 end with .")
                        data = bytearray()
                        while True:
                            chunk = self.rfile.readline()
                            if chunk in (b".\r\n", b".\n", b""):
                                break
                            data += chunk[1:] if chunk.startswith(b"..") else chunk
                        sink.messages.append(message_from_bytes(bytes(data)))
                        sink.envelopes.append((sender, rcpts))
                        self.reply("250 OK queued")
                    elif verb in ("RSET", "NOOP"):
                        self.reply("250 OK")
                    elif verb == "QUIT":
                        self.reply("221 bye")
                        return
                    else:
                        self.reply("502 not implemented")

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
