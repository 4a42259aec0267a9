"""AsyncGuardClient: the asyncio twin of GuardClient (``_client.py``). Its operation methods are
generated into ``_methods.py`` from the operations table (``_operations.py``), the same table
GuardClient's are generated from; this file holds what is particular to it: construction, lifecycle
and an awaitable transport. Cancel a call by cancelling its task: nothing is retried after that."""

from __future__ import annotations

import asyncio
from types import TracebackType
from typing import Any, Awaitable, Callable, Mapping, Optional, Type, Union

import httpx

from ._base import PreparedCall
from ._constants import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT
from ._methods import AsyncMethods

__all__ = ["AsyncGuardClient"]


class AsyncGuardClient(AsyncMethods):
    """Guard's server SDK client for asyncio (awaitable twin of :class:`guard.GuardClient`).

    ::

        async with AsyncGuardClient("https://guard.example.com", api_key=os.environ["GUARD_API_KEY"]) as guard:
            await guard.broker_token("user-42")
            await guard.create_dsr_request(organization_id="org_…", type="erasure")

    Use it as an async context manager, or ``await close()``, so its connection pool is released. An
    ``http_client`` you pass in stays yours: this client never closes it.

    ``timeout`` is in seconds per attempt (each of connect, write and every read of an attempt is
    bounded by it); ``max_retries`` counts retries after the first attempt. ``sleep`` (an async
    callable, default ``asyncio.sleep``; pass ``trio.sleep`` under trio), ``random`` and ``now``
    (epoch seconds) replace how retries wait, the jitter source and the clock that reads an
    HTTP-date ``Retry-After``; tests use them to record delays instead of sleeping.
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
        http_client: Optional[httpx.AsyncClient] = None,
        sleep: Optional[Callable[[float], Awaitable[Any]]] = None,
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
        if http_client is not None and not isinstance(http_client, httpx.AsyncClient):
            raise TypeError("http_client must be an httpx.AsyncClient (use GuardClient for httpx.Client)")
        self._owns_http_client = http_client is None
        self._http = http_client if http_client is not None else httpx.AsyncClient(timeout=self._timeout)
        self._sleep = sleep if sleep is not None else asyncio.sleep

    # ----- lifecycle -----------------------------------------------------------------------------

    async def close(self) -> None:
        """Release the connection pool (only when this client created it)."""
        if self._owns_http_client:
            await self._http.aclose()

    # contextlib.aclosing() and other asyncio code look for aclose().
    aclose = close

    @property
    def is_closed(self) -> bool:
        return self._http.is_closed

    async def __aenter__(self) -> AsyncGuardClient:
        return self

    async def __aexit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        await self.close()

    # ----- transport -------------------------------------------------------------------------------

    async def _send(self, call: PreparedCall) -> Any:
        retries_so_far = 0
        while True:
            request = self._build_request(self._http, call, retries_so_far)
            answer: Union[httpx.Response, httpx.RequestError]
            try:
                answer = await self._http.send(request)
            except httpx.RequestError as exc:
                answer = exc
            value, delay = self._settle(call, retries_so_far, answer)
            if delay is None:
                return value
            await self._sleep(delay)
            retries_so_far += 1
