"""The error tree, shared in shape by the SDK family (conformance/README.md, "Errors").

Every non-2xx answer is a :class:`GuardApiError`. No answer at all is a :class:`GuardConnectionError`
or, when our own timeout ran out, a :class:`GuardTimeoutError`: siblings, not parent and child, so a
caller can tell a slow server from an unreachable one.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Optional

import httpx

__all__ = [
    "GuardError",
    "GuardApiError",
    "GuardConnectionError",
    "GuardTimeoutError",
    "GuardMissingCredentialError",
    "GuardWebhookSecretError",
    "code_for_status",
]


class GuardError(Exception):
    """Base class of every error this SDK raises on purpose."""


class GuardApiError(GuardError):
    """The server answered with a non-2xx status. Branch on :attr:`code`, never on :attr:`message`.

    ``code`` is a catalog code (``guard.API_ERROR_CODES``) or, from a newer server, a code this
    release does not know: it is kept as the string the server sent.
    """

    status: int
    code: str
    message: str
    request_id: Optional[str]
    field: Optional[str]
    headers: httpx.Headers

    def __init__(
        self,
        *,
        status: int,
        code: str,
        message: str,
        request_id: Optional[str] = None,
        field: Optional[str] = None,
        headers: Optional[httpx.Headers] = None,
    ) -> None:
        self.status = status
        self.code = code
        self.message = message
        self.request_id = request_id
        self.field = field
        self.headers = headers if headers is not None else httpx.Headers()
        detail = f"{status} {code}: {message}"
        if request_id:
            detail += f" (request id {request_id})"
        super().__init__(detail)


class GuardConnectionError(GuardError):
    """No response came back: the connection was refused or reset, DNS failed, TLS failed."""

    def __init__(self, message: str, *, cause: Optional[BaseException] = None) -> None:
        super().__init__(message)
        self.message = message
        self.cause = cause


class GuardTimeoutError(GuardError):
    """An attempt outlived its timeout (``timeout``, in seconds)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class GuardMissingCredentialError(GuardError):
    """The call needs a credential the client does not hold. Raised before any network I/O.

    ``credential`` is ``"apiKey"`` or ``"accessToken"``, the family's names for the two credentials
    (the constructor arguments are ``api_key`` and ``access_token``).
    """

    def __init__(self, credential: str) -> None:
        if credential == "apiKey":
            message = "This call needs the service API key: pass api_key to GuardClient(base_url, api_key=...)"
        else:
            message = (
                "This call needs a principal access token: call broker_token(external_id) "
                "or set_access_token(token) first"
            )
        super().__init__(message)
        self.message = message
        self.credential = credential


class GuardWebhookSecretError(GuardError, ValueError):
    """A webhook secret that cannot key a signature: a configuration mistake, not a forged delivery."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


_CODE_FOR_STATUS = {
    # Contract 1.6.0's client mapped every code-less body to VALIDATION_ERROR; a 400 still does.
    400: "VALIDATION_ERROR",
    401: "UNAUTHORIZED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    409: "CONFLICT",
    413: "PAYLOAD_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
    426: "SDK_VERSION_UNSUPPORTED",
    429: "RATE_LIMITED",
    500: "INTERNAL_ERROR",
}


def code_for_status(status: int) -> str:
    """The catalog code for an error body that carries none (a proxy's 502 page, an old server)."""
    if status in _CODE_FOR_STATUS:
        return _CODE_FOR_STATUS[status]
    return "UNAVAILABLE" if status >= 500 else "VALIDATION_ERROR"


def _text(value: Any) -> Optional[str]:
    return value if isinstance(value, str) and value != "" else None


def api_error_from_response(status: int, headers: httpx.Headers, content: bytes) -> GuardApiError:
    """The :class:`GuardApiError` for a non-2xx answer. A body that is not JSON never raises here."""
    body: Mapping[str, Any] = {}
    try:
        parsed = json.loads(content) if content else None
    except ValueError:  # JSONDecodeError and UnicodeDecodeError both subclass ValueError
        parsed = None
    if isinstance(parsed, dict):
        body = parsed
    return GuardApiError(
        status=status,
        code=_text(body.get("code")) or code_for_status(status),
        message=_text(body.get("error")) or f"Request failed with status {status}",
        request_id=_text(body.get("requestId")) or headers.get("x-request-id") or None,
        field=_text(body.get("field")),
        headers=headers,
    )
