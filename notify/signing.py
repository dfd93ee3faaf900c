"""Webhook signatures: HMAC-SHA256 over ``<timestamp>.<body>`` with the endpoint's secret.

Headers of every request (docs/webhooks.md has the receiver's recipe):

``X-Cutthroat-Timestamp``  Unix seconds when this attempt was signed.
``X-Cutthroat-Signature``  ``v1=<hex digest>``.
``X-Cutthroat-Delivery``   the delivery id (the same on every retry: dedupe on it).
``X-Cutthroat-Event``      ``round_published``, ``match_finished`` or ``hand_recorded``.

Signing the timestamp with the body lets a receiver refuse a replayed request (an old timestamp)
without a store of what it has seen; a retry is signed afresh with a new timestamp.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

TIMESTAMP_HEADER = "X-Cutthroat-Timestamp"
SIGNATURE_HEADER = "X-Cutthroat-Signature"
DELIVERY_HEADER = "X-Cutthroat-Delivery"
EVENT_HEADER = "X-Cutthroat-Event"
SCHEME = "v1"
DEFAULT_TOLERANCE = 300  # seconds a receiver accepts between the timestamp and its clock


def new_secret() -> str:
    """A fresh endpoint secret: ``whsec_`` and 256 random bits."""
    return "whsec_" + secrets.token_urlsafe(32)


def signature(secret: str, timestamp: int, body: bytes) -> str:
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"{SCHEME}={mac.hexdigest()}"


def sign(secret: str, body: bytes, *, now: float | None = None) -> dict[str, str]:
    """The timestamp and signature headers for ``body``."""
    ts = int(time.time() if now is None else now)
    return {TIMESTAMP_HEADER: str(ts), SIGNATURE_HEADER: signature(secret, ts, body)}


def verify(
    secret: str,
    body: bytes,
    timestamp: str,
    signature_header: str,
    *,
    tolerance: int = DEFAULT_TOLERANCE,
    now: float | None = None,
) -> bool:
    """The receiver's check (the same as the recipe in docs/webhooks.md)."""
    try:
        ts = int(timestamp)
    except (TypeError, ValueError):
        return False
    if abs((time.time() if now is None else now) - ts) > tolerance:
        return False
    expected = signature(secret, ts, body)
    return any(
        hmac.compare_digest(expected, candidate.strip())
        for candidate in signature_header.split(",")
    )
