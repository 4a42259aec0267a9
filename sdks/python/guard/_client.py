"""GuardClient: the synchronous client. Its operation methods are generated into ``_methods.py`` from
the operations table (``_operations.py``), the same table AsyncGuardClient's are generated from; this
file holds what is particular to it: construction, lifecycle and a blocking transport."""

from __future__ import annotations

import time
from types import TracebackType
from typing import Any, Callable, Mapping, Optional, Type, Union

import httpx

from ._base import PreparedCall
from ._constants import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT
from ._methods import SyncMethods

__all__ = ["GuardClient"]


class GuardClient(SyncMethods):
    """Guard's server SDK client.

    ::

        with GuardClient("https://guard.example.com", api_key=os.environ["GUARD_API_KEY"]) as guard:
            guard.broker_token("user-42")
            guard.create_dsr_request(organization_id="org_…", type="erasure")

    Use it as a context manager, or call :meth:`close`, so its connection pool is released. An
    ``http_client`` you pass in stays yours: this client never closes it.

    ``timeout`` is in seconds per attempt (each of connect, write and every read of an attempt is
    bounded by it); ``max_retries`` counts retries after the first attempt. ``sleep``, ``random``
    and ``now`` (epoch seconds) are for tests: they replace how retries wait, the jitter source and
    the clock that reads an HTTP-date ``Retry-After``.
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: Optional[str] = None,
        access_token: Optional[str] = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        default_headers: Optional[Mapping[str, str]] = None,
        http_client: Optional[httpx.Client] = None,
        sleep: Optional[Callable[[float], Any]] = None,
        random: Optional[Callable[[], float]] = None,
        now: Optional[Callable[[], float]] = None,
    ) -> None:
        super().__init__(
            base_url,
            api_key=api_key,
            access_token=access_token,
            timeout=timeout,
            max_retries=max_retries,
            default_headers=default_headers,
            random=random,
            now=now,
        )
        if http_client is not None and not isinstance(http_client, httpx.Client):
            raise TypeError("http_client must be an httpx.Client (use AsyncGuardClient for httpx.AsyncClient)")
        self._owns_http_client = http_client is None
        self._http = http_client if http_client is not None else httpx.Client(timeout=self._timeout)
        self._sleep = sleep if sleep is not None else time.sleep

    # ----- lifecycle -----------------------------------------------------------------------------

    def close(self) -> None:
        """Release the connection pool (only when this client created it)."""
        if self._owns_http_client:
            self._http.close()

    @property
    def is_closed(self) -> bool:
        return self._http.is_closed

    def __enter__(self) -> GuardClient:
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        self.close()

    # ----- transport -------------------------------------------------------------------------------

    def _send(self, call: PreparedCall) -> Any:
        retries_so_far = 0
        while True:
            request = self._build_request(self._http, call, retries_so_far)
            answer: Union[httpx.Response, httpx.RequestError]
            try:
                answer = self._http.send(request)
            except httpx.RequestError as exc:
                answer = exc
            value, delay = self._settle(call, retries_so_far, answer)
            if delay is None:
                return value
            self._sleep(delay)
            retries_so_far += 1
