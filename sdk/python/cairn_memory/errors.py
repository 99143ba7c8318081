"""Errors of Cairn's REST API as exceptions, one class per kind."""

from __future__ import annotations

from typing import Any, Optional


class CairnError(Exception):
    """An error answered by the server: `code` (stable, machine-readable),
    `message` (for humans), `details`, and the HTTP `status`."""

    def __init__(self, status: int, code: str, message: str, details: Any = None,
                 retry_after: Optional[float] = None) -> None:
        super().__init__(f"{code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.retry_after = retry_after


class BadRequest(CairnError):
    """400 or 422: the request is malformed or a value is out of range."""


class Unauthenticated(CairnError):
    """401: no API key, or an unknown, revoked or expired one."""


class Forbidden(CairnError):
    """403: the key's role may not do this."""


class NotFound(CairnError):
    """404: no such memory (in this tenant), key or route."""


class Conflict(CairnError):
    """409: an ambiguous id prefix (see `details["candidates"]`), or an id
    already stored."""


class TooLarge(CairnError):
    """413: the body or the content is too large."""


class RateLimited(CairnError):
    """429: over the key's rate limit (after the client's retries)."""


class Unavailable(CairnError):
    """503: the store is busy or not ready (after the client's retries)."""


_BY_STATUS = {
    400: BadRequest,
    401: Unauthenticated,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    413: TooLarge,
    422: BadRequest,
    429: RateLimited,
    503: Unavailable,
}


def error_for(status: int, body: Any, retry_after: Optional[float]) -> CairnError:
    """The exception for an error answer."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        error = {"code": "http_error", "message": f"HTTP {status}", "details": body}
    cls = _BY_STATUS.get(status, CairnError)
    return cls(status, str(error.get("code", "http_error")), str(error.get("message", "")),
               error.get("details"), retry_after)
