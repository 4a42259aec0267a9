"""Per-request options: the trailing ``request_options=`` argument of every client method."""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, TypedDict

__all__ = ["RequestOptions", "check_request_options"]


class RequestOptions(TypedDict, total=False):
    """Overrides for one call. Every key is optional.

    - ``timeout``: seconds per attempt (the client's ``timeout`` otherwise).
    - ``max_retries``: retries after the first attempt (the client's ``max_retries`` otherwise).
    - ``idempotency_key``: for create calls; without it the SDK mints one per call.
    - ``headers``: extra headers, merged over the SDK's, except ``Authorization``,
      ``X-Guard-SDK`` and ``X-Guard-Retry-Count``, which the SDK owns.

    Cancelling a call is done the Python way: cancel the task running an async call.
    """

    timeout: float
    max_retries: int
    idempotency_key: str
    headers: Mapping[str, str]


_KEYS = frozenset(RequestOptions.__annotations__)


def check_request_options(options: Optional[Mapping[str, Any]]) -> Dict[str, Any]:
    """The options as a plain dict. An unknown key raises: a typo must not silently do nothing."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise TypeError(f"request_options must be a mapping, got {type(options).__name__}")
    unknown = sorted(set(options) - _KEYS)
    if unknown:
        raise TypeError(f"unknown request option(s) {', '.join(map(repr, unknown))}; known: {', '.join(sorted(_KEYS))}")
    headers = options.get("headers")
    if headers is not None and (
        not isinstance(headers, Mapping)
        or not all(isinstance(name, str) and isinstance(value, str) for name, value in headers.items())
    ):
        raise TypeError("request_options['headers'] must map header names to string values")
    return dict(options)
