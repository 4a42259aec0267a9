"""What the sync and async clients share: configuration, request preparation from the operations
table, answer handling and the retry decision after each attempt.

Everything here is I/O-free, so the two clients differ only in how they send and sleep.
"""

from __future__ import annotations

import json
import logging
import math
import time
import uuid
from dataclasses import dataclass
from random import random as _default_random
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union
from urllib.parse import quote, urlsplit

import httpx

from ._constants import (
    IDEMPOTENCY_KEY_HEADER,
    RETRY_COUNT_HEADER,
    SDK_HEADER,
    SDK_HEADER_VALUE,
    SDK_OWNED_HEADERS,
)
from ._errors import (
    GuardApiError,
    GuardConnectionError,
    GuardError,
    GuardMissingCredentialError,
    GuardTimeoutError,
    api_error_from_response,
)
from ._operations import ACCESS_TOKEN, API_KEY, OPERATIONS, PATH, QUERY, SESSION_LIST, STRING_LIST, Operation
from ._options import RequestOptions, check_request_options
from ._retry import AttemptFailure, decide_retry

logger = logging.getLogger("guard")

# encodeURIComponent's unreserved set, so every SDK of the family writes the same path bytes.
_PATH_SAFE = "!*'()"


@dataclass(frozen=True)
class PreparedCall:
    """One logical call: fixed before the first attempt, reused by every retry."""

    operation: Operation
    url: str
    params: Dict[str, str]
    headers: Dict[str, str]
    content: Optional[bytes]
    timeout: float
    max_retries: int
    safe_to_repeat: bool


def _check_seconds(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
    return float(value)


def _check_retries(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def _check_credential(name: str, value: Any) -> Optional[str]:
    # An empty string means "not set", as in the Node SDK: os.environ.get("X", "") is a common source.
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string or None, got {type(value).__name__}")
    return value


def _check_base_url(base_url: Any) -> str:
    if not isinstance(base_url, str):
        raise TypeError(f"base_url must be a string, got {type(base_url).__name__}")
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"base_url must be an absolute http(s) URL, got {base_url!r}")
    if parts.query or parts.fragment:
        raise ValueError(f"base_url must not have a query or fragment, got {base_url!r}")
    return base_url.rstrip("/")


class ClientCore:
    """Configuration and the I/O-free half of every call."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: Optional[str],
        access_token: Optional[str],
        timeout: float,
        max_retries: int,
        default_headers: Optional[Mapping[str, str]],
        random: Optional[Callable[[], float]],
        now: Optional[Callable[[], float]],
    ) -> None:
        self._base_url = _check_base_url(base_url)
        self._api_key = _check_credential("api_key", api_key)
        self._access_token = _check_credential("access_token", access_token)
        self._timeout = _check_seconds("timeout", timeout)
        self._max_retries = _check_retries("max_retries", max_retries)
        self._default_headers = _check_headers("default_headers", default_headers)
        self._random = random if random is not None else _default_random
        self._now = now if now is not None else time.time

    @property
    def base_url(self) -> str:
        return self._base_url

    @property
    def timeout(self) -> float:
        return self._timeout

    @property
    def max_retries(self) -> int:
        return self._max_retries

    def set_access_token(self, token: Optional[str]) -> None:
        """Use ``token`` for principal calls from now on (after re-brokering, or from your app's
        session); ``None`` forgets the current one."""
        self._access_token = _check_credential("token", token)

    def _store_token(self, token: Any) -> None:
        if not isinstance(token, dict) or not isinstance(token.get("accessToken"), str):
            raise GuardError("broker_token: the response carries no accessToken")
        self._access_token = token["accessToken"]

    # ----- preparing a call --------------------------------------------------------------------

    def _prepare(
        self,
        method_name: str,
        arguments: Mapping[str, Any],
        request_options: Optional[RequestOptions],
        idempotency_key: Optional[str] = None,
    ) -> PreparedCall:
        """One call of ``OPERATIONS[method_name]``: ``arguments`` maps each of its parameters'
        Python names to the value the caller passed, and the row says where each one goes."""
        operation = OPERATIONS[method_name]
        path_values, query, body = _place(operation, arguments)
        options = check_request_options(request_options)
        # Credentials first: a call that cannot succeed must not touch the network.
        authorization = self._authorization(operation)

        path = operation.path
        for name, value in path_values.items():
            if not isinstance(value, str) or value == "":
                raise ValueError(f"{name} must be a non-empty string, got {value!r}")
            path = path.replace("{" + name + "}", quote(value, safe=_PATH_SAFE))

        # The client's default headers, then the call's, then the ones the SDK decides.
        headers: Dict[str, str] = {}
        for source in (self._default_headers, options.get("headers") or {}):
            for name, value in source.items():
                if name.lower() not in SDK_OWNED_HEADERS:
                    _set_header(headers, name, value)
        _set_header(headers, "Accept", "application/json")
        _set_header(headers, SDK_HEADER, SDK_HEADER_VALUE)
        if authorization is not None:
            _set_header(headers, "Authorization", authorization)
        content = None
        if body is not None:
            _set_header(headers, "Content-Type", "application/json")
            content = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        else:
            _drop_header(headers, "Content-Type")
        key = self._idempotency_key(operation, idempotency_key, options.get("idempotency_key"))
        if key is not None:
            _set_header(headers, IDEMPOTENCY_KEY_HEADER, key)

        safe = (
            operation.http_method == "GET"
            or operation.idempotent_by_contract
            or any(name.lower() == IDEMPOTENCY_KEY_HEADER.lower() for name in headers)
        )
        params = {name: str(value) for name, value in query.items() if value is not None and value != ""}
        return PreparedCall(
            operation=operation,
            url=self._base_url + path,
            params=params,
            headers=headers,
            content=content,
            timeout=_check_seconds("timeout", options["timeout"]) if "timeout" in options else self._timeout,
            max_retries=(
                _check_retries("max_retries", options["max_retries"]) if "max_retries" in options else self._max_retries
            ),
            safe_to_repeat=safe,
        )

    def _authorization(self, operation: Operation) -> Optional[str]:
        if operation.credential == API_KEY:
            if self._api_key is None:
                raise GuardMissingCredentialError("apiKey")
            return f"Bearer {self._api_key}"
        if operation.credential == ACCESS_TOKEN:
            if self._access_token is None:
                raise GuardMissingCredentialError("accessToken")
            return f"Bearer {self._access_token}"
        return None

    @staticmethod
    def _idempotency_key(operation: Operation, argument: Optional[str], option: Optional[str]) -> Optional[str]:
        given = [key for key in (argument, option) if key is not None]
        for key in given:
            if not isinstance(key, str) or key == "":
                raise ValueError(f"idempotency_key must be a non-empty string, got {key!r}")
        if len(given) == 2 and given[0] != given[1]:
            raise ValueError(
                "idempotency_key was given both as an argument and in request_options, with different values"
            )
        if given:
            return given[0]
        # Minted once per logical call, before the first attempt, and sent on every retry: a lost
        # response followed by a retry then creates one record, never two.
        return str(uuid.uuid4()) if operation.creates else None

    @staticmethod
    def _build_request(
        http: Union[httpx.Client, httpx.AsyncClient], call: PreparedCall, retries_so_far: int
    ) -> httpx.Request:
        """One attempt of ``call``. The httpx client builds it, so the defaults of one passed in as
        ``http_client`` (headers, auth, cookies) apply to every attempt."""
        headers = dict(call.headers)
        headers[RETRY_COUNT_HEADER] = str(retries_so_far)
        return http.build_request(
            call.operation.http_method,
            call.url,
            params=call.params or None,
            headers=headers,
            content=call.content,
            timeout=call.timeout,
        )

    # ----- after an attempt ----------------------------------------------------------------------

    def _settle(
        self, call: PreparedCall, retries_so_far: int, answer: Union[httpx.Response, httpx.RequestError]
    ) -> Tuple[Any, Optional[float]]:
        """What one attempt's answer (a response, or the transport error it ended in) means for the
        call: ``(value, None)`` when it succeeded, ``(None, delay)`` when it is to be retried after
        ``delay`` seconds. Raises the call's error when it is over without a result. The sync and
        async transports differ only in how they send and sleep around this."""
        cause: Optional[BaseException] = None
        if isinstance(answer, httpx.RequestError):
            cause = answer
            failure, error = self._transport_failure(call, answer)
        else:
            outcome, value, api_error = self._result(answer)
            if api_error is None:
                return self._finish(call, value), None
            if outcome is None:  # a 2xx we cannot read: repeating would not help
                raise api_error
            failure, error = outcome, api_error
        decision = decide_retry(
            failure=failure,
            retries_so_far=retries_so_far,
            max_retries=call.max_retries,
            safe_to_repeat=call.safe_to_repeat,
            now=self._now(),
            random=self._random,
        )
        if not decision.retry:
            raise error from cause
        self._log_retry(call, retries_so_far, decision.reason, decision.delay)
        return None, decision.delay

    def _finish(self, call: PreparedCall, value: Any) -> Any:
        if call.operation.stores_token:
            self._store_token(value)
        return value

    @staticmethod
    def _result(response: httpx.Response) -> Tuple[Optional[AttemptFailure], Any, Optional[GuardError]]:
        """``(failure, value, error)``: a 2xx gives its parsed body; anything else an API error."""
        status = response.status_code
        content = response.content
        if 200 <= status < 300:
            if not content:
                return None, None, None
            try:
                return None, json.loads(content), None
            except ValueError:
                # A 2xx that is not JSON did not come from Guard (a captive portal, a misrouted
                # proxy); there is no result to hand back. Same code as the Node SDK.
                error = GuardApiError(
                    status=status,
                    code="INTERNAL_ERROR",
                    message=f"The {status} response body is not JSON",
                    request_id=response.headers.get("x-request-id"),
                    headers=response.headers,
                )
                return None, None, error
        failure = AttemptFailure("status", status=status, retry_after=response.headers.get("retry-after"))
        return failure, None, api_error_from_response(status, response.headers, content)

    @staticmethod
    def _transport_failure(call: PreparedCall, exc: httpx.HTTPError) -> Tuple[AttemptFailure, GuardError]:
        what = f"{call.operation.http_method} {call.url}"
        if isinstance(exc, httpx.TimeoutException):
            return AttemptFailure("timeout"), GuardTimeoutError(f"{what} timed out after {call.timeout:g} s")
        return AttemptFailure("connection"), GuardConnectionError(f"{what} failed: {exc}", cause=exc)

    @staticmethod
    def _log_retry(call: PreparedCall, retries_so_far: int, reason: str, delay: float) -> None:
        logger.info(
            "guard: retrying %s %s (retry %d of %d) in %.3f s: %s",
            call.operation.http_method,
            call.operation.path,
            retries_so_far + 1,
            call.max_retries,
            delay,
            reason,
        )


def _drop_header(headers: Dict[str, str], name: str) -> None:
    for existing in [key for key in headers if key.lower() == name.lower()]:
        del headers[existing]


def _set_header(headers: Dict[str, str], name: str, value: str) -> None:
    """Header names are case-insensitive: replace any spelling of ``name``."""
    _drop_header(headers, name)
    headers[name] = value


def _check_headers(name: str, headers: Optional[Mapping[str, str]]) -> Dict[str, str]:
    if headers is None:
        return {}
    if not isinstance(headers, Mapping) or not all(
        isinstance(key, str) and isinstance(value, str) for key, value in headers.items()
    ):
        raise TypeError(f"{name} must map header names to string values")
    return dict(headers)


def _string_list(name: str, value: Any) -> List[str]:
    """A list of strings from any sequence of them; a bare string is refused, not split into letters."""
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a list of strings, not a single string")
    return list(value)


def _mapping_list(name: str, value: Any) -> List[Dict[str, Any]]:
    """A list of JSON objects from any sequence of mappings; a single mapping or a string is refused
    (iterating either would send its keys or letters)."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
        raise TypeError(f"{name} must be a list of dicts")
    items = list(value)
    if not all(isinstance(item, Mapping) for item in items):
        raise TypeError(f"{name} must be a list of dicts")
    return [dict(item) for item in items]


def _place(
    operation: Operation, arguments: Mapping[str, Any]
) -> Tuple[Dict[str, Any], Dict[str, Any], Optional[Dict[str, Any]]]:
    """``(path values, query, body)`` of one call, keyed by wire name; the body is ``None`` for an
    operation that takes none. An optional body field left at ``None`` is left out, never sent as
    null; ``_prepare`` drops a query value of ``None`` or ``""`` the same way."""
    path_values: Dict[str, Any] = {}
    query: Dict[str, Any] = {}
    body: Optional[Dict[str, Any]] = None
    for param in operation.params:
        value = arguments[param.name]
        if param.where == PATH:
            path_values[param.wire] = value
        elif param.where == QUERY:
            query[param.wire] = value
        else:
            if body is None:
                body = {}
            if value is None and param.optional:
                continue
            if param.annotation == STRING_LIST:
                value = _string_list(param.name, value)
            elif param.annotation == SESSION_LIST:
                value = _mapping_list(param.name, value)
            body[param.wire] = value
    return path_values, query, body
