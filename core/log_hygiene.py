"""No secret in Django's logs (issue 12, item 6).

* :class:`RedactSecretsFilter`, on every log handler: a referee link's key in a logged path
  (``Not Found: /ref/<key>/``; also an invitation's key typed into a path, ``/invite/<key>``)
  and ``Authorization`` / ``Token`` / ``Bearer`` / ``sessionid`` / ``csrftoken`` values in any
  message are replaced by ``[redacted]`` before a handler formats the record.
* :class:`SafeExceptionReporterFilter`: error reports (500 pages under DEBUG, the admin e-mail
  handler, Sentry's Django integration reads it too) hide the ``Authorization`` header as they
  already hide cookies, settings and passwords.

The web server's access log is configured in deploy/ (it logs paths without ``/ref/`` keys).

* :class:`ClientErrorFilter`, on the ``django.request`` logger: a 4xx answer is one WARNING
  line without a traceback (a referee's link used on another match, a 403, is the client's
  mistake, not a bug). Django attaches the traceback of a ``PermissionDenied`` raised in a
  view; a 5xx keeps its traceback.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from django.views.debug import SafeExceptionReporterFilter as DjangoSafeFilter

REDACTED = "[redacted]"
_FORMATTER = logging.Formatter()
_PATTERNS = [
    # /ref/<key>/ (a referee's private link) and /invite/<key> (a co-director invitation
    # typed without its "#"), absolute or relative, any key alphabet
    (re.compile(r"(/(?:ref|invite)/)[^/\s?#\"']+"), rf"\g<1>{REDACTED}"),
    # Authorization: Token abc / Bearer abc / Basic abc (header dumps, repr of META)
    (
        re.compile(
            r"(?i)(\b(?:authorization|http_authorization)['\"]?\s*[:=]\s*['\"]?)[^'\"\n,}]+"
        ),
        rf"\g<1>{REDACTED}",
    ),
    (re.compile(r"(?i)\b(token|bearer|basic)(\s+)[A-Za-z0-9._~+/=-]{8,}"), rf"\1\2{REDACTED}"),
    # cookie values
    (re.compile(r"(?i)\b(sessionid|csrftoken)=[^;\s'\"]+"), rf"\1={REDACTED}"),
]


def redact(text: str) -> str:
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


class RedactSecretsFilter(logging.Filter):
    """Rewrite the record's message with secrets redacted (never drops a record)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:
            return True
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and not record.exc_text:
            # Formatters reuse exc_text when set: format the traceback here, redacted.
            record.exc_text = _FORMATTER.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


class ClientErrorFilter(logging.Filter):
    """Drop the traceback of a request logged with a 4xx status (never drops a record)."""

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if isinstance(status, int) and 400 <= status < 500:
            record.exc_info = None
            record.exc_text = None
        return True


class SafeExceptionReporterFilter(DjangoSafeFilter):
    """Django's filter, also hiding the ``Authorization`` header and referee link keys."""

    hidden_settings = re.compile(
        "API|AUTH|TOKEN|KEY|SECRET|PASS|SIGNATURE|HTTP_COOKIE", flags=re.IGNORECASE
    )

    def get_safe_request_meta(self, request: Any) -> dict[str, Any]:
        meta = super().get_safe_request_meta(request)
        for key in ("PATH_INFO", "REQUEST_URI", "RAW_URI", "QUERY_STRING"):
            if isinstance(meta.get(key), str):
                meta[key] = redact(meta[key])
        return meta
