"""A tiny asyncio HTTP/1.1 client for the bench: one connection per request, loopback only.

Far cheaper per request than a general-purpose client, so the load generator (which shares the
machine's cores with the server under test) steals as little CPU as possible. It speaks only
what the bench needs: ``Connection: close``, ``Content-Length`` bodies, cookies by hand.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

LOOPBACK = ("127.0.0.1", "localhost", "::1")


@dataclass
class Response:
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    seconds: float

    def header(self, name: str) -> str | None:
        lname = name.lower()
        for k, v in self.headers:
            if k.lower() == lname:
                return v
        return None

    def cookies(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for k, v in self.headers:
            if k.lower() == "set-cookie":
                pair = v.split(";", 1)[0]
                name, _, value = pair.partition("=")
                out[name.strip()] = value.strip()
        return out

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


@dataclass
class Session:
    """One referee's browser: cookies (sent by hand, so Secure cookies work over loopback)."""

    host: str
    port: int
    cookies: dict[str, str] = field(default_factory=dict)
    timeout: float = 30.0

    def __post_init__(self) -> None:
        if self.host not in LOOPBACK:
            raise ValueError(f"the bench only talks to loopback, not {self.host!r}")

    async def request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        headers: dict[str, str] | None = None,
    ) -> Response:
        payload = b"" if body is None else json.dumps(body).encode()
        lines = [
            f"{method} {path} HTTP/1.1",
            f"Host: {self.host}:{self.port}",
            "Connection: close",
            "Accept: application/json",
            "User-Agent: bench-hands/1",
        ]
        if self.cookies:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        if body is not None:
            lines.append("Content-Type: application/json")
        lines.append(f"Content-Length: {len(payload)}")
        for k, v in (headers or {}).items():
            lines.append(f"{k}: {v}")
        raw = ("\r\n".join(lines) + "\r\n\r\n").encode() + payload
        start = time.perf_counter()
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(self.host, self.port), self.timeout
        )
        try:
            writer.write(raw)
            await writer.drain()
            data = await asyncio.wait_for(reader.read(), self.timeout)
        finally:
            writer.close()
        seconds = time.perf_counter() - start
        head, _, rest = data.partition(b"\r\n\r\n")
        head_lines = head.decode("latin-1").split("\r\n")
        status = int(head_lines[0].split(" ", 2)[1])
        hdrs = []
        for line in head_lines[1:]:
            k, _, v = line.partition(":")
            hdrs.append((k.strip(), v.strip()))
        response = Response(status, hdrs, rest, seconds)
        self.cookies.update(response.cookies())
        return response
