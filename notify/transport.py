"""Outbound HTTP for webhooks, with care for server-side request forgery (SSRF).

A director types the URL, and our workers sit inside the deployment's network, so a URL must
not become a way to reach what only the server can reach (the database, Redis, the metrics
port, a cloud metadata address). Rules:

* ``http`` or ``https`` only, no user name or password in the URL;
* the host name is resolved ONCE here and every address it resolves to must be public
  (``ipaddress``' ``is_global``): loopback, private, link-local, shared and reserved ranges are
  refused unless ``WEBHOOK_ALLOW_PRIVATE_TARGETS`` is set (tests, a closed venue network); an
  IPv6 address that embeds an IPv4 one (NAT64, 6to4, Teredo, IPv4-mapped or -compatible) must
  embed a public one;
* the connection goes to the address that was checked (the Host header and TLS name are the
  URL's host), so a DNS answer that changes between the check and the connect cannot redirect
  it; redirects are never followed; connect and read time out.

urllib3 (already a dependency of the project's locked set) is used directly because it lets us
connect to a checked address while verifying TLS for the URL's host name.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

import urllib3
from django.conf import settings
from django.utils.translation import gettext as _

MAX_RESPONSE_BYTES = 1024


class UnsafeTargetError(ValueError):
    """The URL may not be called (scheme, credentials or a non-public address)."""

    def __init__(self, message: str, *, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient  # a DNS failure may pass; a private address will not


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str
    port: int
    path: str
    addresses: tuple[str, ...]  # every one checked; tried in the resolver's order


@dataclass(frozen=True)
class Outcome:
    status: int | None
    error: str
    permanent: bool = False  # retrying cannot help (the URL is refused)

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def check_url(url: str) -> tuple[str, str, int, str]:
    """Scheme, host, port and path of ``url``, or :class:`UnsafeTargetError` (no DNS lookup)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise UnsafeTargetError(_("only http and https URLs may receive webhooks"))
    if parts.username or parts.password:
        raise UnsafeTargetError(_("a webhook URL may not carry a user name or password"))
    if not parts.hostname:
        raise UnsafeTargetError(_("the URL has no host"))
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise UnsafeTargetError(_("the URL's port is not a number from 1 to 65535")) from exc
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return parts.scheme, parts.hostname, port, path


# IPv6 ranges that carry an IPv4 address a translator or tunnel delivers to: a NAT64 gateway
# (RFC 6052) turns 64:ff9b::7f00:1 into 127.0.0.1, and ``is_global`` is true for it. The
# IPv4-compatible form (::a.b.c.d, deprecated by RFC 4291) is unwrapped the same way.
_NAT64: Final = ipaddress.IPv6Network("64:ff9b::/96")
_IPV4_COMPATIBLE: Final = ipaddress.IPv6Network("::/96")
# RFC 8215's local-use NAT64 prefix: the operator chooses where the IPv4 sits in it, and it is
# never globally reachable (IANA), so it is refused as a private range is.
_NAT64_LOCAL: Final = ipaddress.IPv6Network("64:ff9b:1::/48")


def embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses that ``ip`` delivers to through a translator or tunnel: IPv4-mapped
    (::ffff:0:0/96), NAT64 (64:ff9b::/96), IPv4-compatible (::/96), 6to4 (2002::/16) and
    Teredo (2001::/32: its server and its client)."""
    found: list[ipaddress.IPv4Address] = []
    if ip.ipv4_mapped is not None:
        found.append(ip.ipv4_mapped)
    if ip in _NAT64 or ip in _IPV4_COMPATIBLE:
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    if ip.sixtofour is not None:
        found.append(ip.sixtofour)
    if ip.teredo is not None:
        found.extend(ip.teredo)
    return found


def address_allowed(address: str) -> bool:
    """Whether a webhook may connect to ``address``: never unspecified or multicast; public
    only (``is_global``) unless ``WEBHOOK_ALLOW_PRIVATE_TARGETS``. An IPv6 address that
    carries an IPv4 one (:func:`embedded_ipv4`) is allowed only if that IPv4 address is too;
    an IPv4-mapped one is judged as its IPv4 address alone."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    judged: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = [ip]
    if isinstance(ip, ipaddress.IPv6Address):
        judged = [ip.ipv4_mapped] if ip.ipv4_mapped is not None else [ip, *embedded_ipv4(ip)]
    if any(a.is_unspecified or a.is_multicast for a in judged):
        return False
    if getattr(settings, "WEBHOOK_ALLOW_PRIVATE_TARGETS", False):
        return True
    return ip not in _NAT64_LOCAL and all(a.is_global for a in judged)


def resolve(url: str) -> Target:
    """Check ``url`` and resolve its host; every address must be allowed."""
    scheme, host, port, path = check_url(url)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise UnsafeTargetError(
            _("the host %(host)s does not resolve") % {"host": host}, transient=True
        ) from exc
    addresses = [str(info[4][0]) for info in infos]
    if not addresses:
        raise UnsafeTargetError(
            _("the host %(host)s does not resolve") % {"host": host}, transient=True
        )
    refused = [a for a in addresses if not address_allowed(a)]
    if refused:
        raise UnsafeTargetError(
            _(
                "%(host)s resolves to a private, loopback or reserved address (%(address)s); "
                "webhooks go to public addresses only"
            )
            % {"host": host, "address": refused[0]}
        )
    return Target(scheme, host, port, path, tuple(dict.fromkeys(addresses)))


def post(url: str, body: bytes, headers: dict[str, str], *, timeout: float) -> Outcome:
    """POST ``body`` to ``url`` once (no redirects, no retries: the caller retries). The
    host's checked addresses are tried in turn until one accepts the connection."""
    try:
        target = resolve(url)
    except UnsafeTargetError as exc:
        return Outcome(None, str(exc), permanent=not exc.transient)
    outcome = Outcome(None, "no address to connect to")
    for address in target.addresses:
        outcome, connected = _post_to(target, address, body, headers, timeout)
        if connected:
            break
    return outcome


def _post_to(
    target: Target, address: str, body: bytes, headers: dict[str, str], timeout: float
) -> tuple[Outcome, bool]:
    """One attempt at one address; the flag says whether a connection was made."""
    default_port = 443 if target.scheme == "https" else 80
    name = f"[{target.host}]" if ":" in target.host else target.host
    host_header = name if target.port == default_port else f"{name}:{target.port}"
    pool: urllib3.HTTPConnectionPool
    common = {
        "timeout": urllib3.Timeout(connect=timeout, read=timeout),
        "retries": False,
        "maxsize": 1,
    }
    if target.scheme == "https":
        pool = urllib3.HTTPSConnectionPool(
            address,
            target.port,
            server_hostname=target.host,
            assert_hostname=target.host,
            cert_reqs="CERT_REQUIRED",
            **common,  # type: ignore[arg-type]
        )
    else:
        pool = urllib3.HTTPConnectionPool(address, target.port, **common)  # type: ignore[arg-type]
    try:
        response = pool.urlopen(
            "POST",
            target.path,
            body=body,
            headers={
                **headers,
                "Host": host_header,
                "Content-Type": "application/json",
                "User-Agent": "Cutthroat-Webhooks/1",
            },
            redirect=False,
            preload_content=False,
            assert_same_host=False,
        )
        try:
            response.read(MAX_RESPONSE_BYTES)
        finally:
            response.release_conn()
        status = response.status
        return Outcome(status, "" if 200 <= status < 300 else f"HTTP {status}"), True
    except (urllib3.exceptions.NewConnectionError, urllib3.exceptions.ConnectTimeoutError) as exc:
        return Outcome(None, f"{type(exc).__name__}: {exc}"[:300]), False
    except urllib3.exceptions.HTTPError as exc:
        return Outcome(None, f"{type(exc).__name__}: {exc}"[:300]), True
    except OSError as exc:
        return Outcome(None, f"{type(exc).__name__}: {exc}"[:300]), True
    finally:
        pool.close()
