"""AsyncGuardClient behaves as GuardClient does: the same headers, retries, idempotency keys and
errors (the transport tests' key cases, run on the async client), plus task cancellation."""

from __future__ import annotations

import asyncio
import re
from typing import Any, Awaitable, TypeVar

import httpx
import pytest
from conftest import AsyncRecorder, ScriptedServer, json_response, make_async_client

import guard

T = TypeVar("T")
ORG = "org_9f2c4a7b1d3e"
UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def run(coroutine: Awaitable[T]) -> T:
    return asyncio.run(coroutine)  # type: ignore[arg-type]


def unavailable(retry_after: Any = None) -> httpx.Response:
    headers = {"retry-after": retry_after} if retry_after is not None else None
    return json_response(503, {"code": "UNAVAILABLE", "error": "down"}, headers)


def test_retries_send_the_attempt_number_and_wait_with_the_injected_sleeper() -> None:
    server = ScriptedServer(unavailable(), unavailable("3"), json_response(200, {"orgId": ORG}))
    sleeper = AsyncRecorder()

    async def scenario() -> Any:
        async with make_async_client(server, sleeper) as client:
            return await client.get_organization("acme")

    assert run(scenario()) == {"orgId": ORG}
    assert server.header("X-Guard-Retry-Count") == ["0", "1", "2"]
    assert set(server.header("X-Guard-SDK")) == {f"guard-sdk/{guard.__version__}"}
    assert sleeper.delays == [0.5, 3.0]


def test_a_create_reuses_its_minted_key_on_every_retry() -> None:
    server = ScriptedServer(
        unavailable("0"), httpx.ConnectError("reset"), json_response(201, {"grievanceId": "grv_12345678"})
    )

    async def scenario() -> None:
        async with make_async_client(server, access_token="tok") as client:
            await client.create_grievance(organization_id=ORG, subject="s", description="d")

    run(scenario())
    keys = server.header("Idempotency-Key")
    assert len(keys) == 3 and UUID4.match(keys[0] or "") and len(set(keys)) == 1


def test_unsafe_writes_are_not_repeated_and_errors_map_the_same_way() -> None:
    server = ScriptedServer(
        unavailable("0"), json_response(404, {"code": "NOT_FOUND", "error": "no", "requestId": "req_1"})
    )

    async def scenario() -> None:
        async with make_async_client(server, api_key="gk_live_secret") as client:
            with pytest.raises(guard.GuardApiError) as first:
                await client.withdraw_consent("cns_0000000000")
            assert (first.value.status, first.value.code) == (503, "UNAVAILABLE")
            with pytest.raises(guard.GuardApiError) as second:
                await client.get_consent("cns_0000000000")
            assert (second.value.status, second.value.code, second.value.request_id) == (404, "NOT_FOUND", "req_1")

    run(scenario())
    assert len(server.requests) == 2


def test_connection_and_timeout_failures_are_distinct_errors() -> None:
    server = ScriptedServer(httpx.ConnectError("refused"), httpx.ReadTimeout("slow"))

    async def scenario() -> None:
        async with make_async_client(server, max_retries=0) as client:
            with pytest.raises(guard.GuardConnectionError):
                await client.get_notice("ntc_12345678")
            with pytest.raises(guard.GuardTimeoutError):
                await client.get_notice("ntc_12345678")

    run(scenario())


def test_missing_credentials_fail_before_any_request() -> None:
    def never(request: httpx.Request) -> httpx.Response:
        raise AssertionError("no request may be sent")

    async def scenario() -> None:
        async with make_async_client(ScriptedServer(never)) as client:
            with pytest.raises(guard.GuardMissingCredentialError) as caught:
                await client.broker_token("user-1")
            assert caught.value.credential == "apiKey"
            with pytest.raises(guard.GuardMissingCredentialError):
                await client.create_dsr_request(organization_id=ORG, type="erasure")

    run(scenario())


def test_broker_token_stores_the_token() -> None:
    token = {"accessToken": "tok-brokered", "expiresAt": 1, "tokenType": "Bearer"}
    server = ScriptedServer(json_response(201, token), json_response(200, {"requests": []}))

    async def scenario() -> None:
        async with make_async_client(server, api_key="gk_live_secret") as client:
            await client.broker_token("user-42")
            await client.list_dsr_requests()

    run(scenario())
    assert server.header("Authorization") == ["Bearer gk_live_secret", "Bearer tok-brokered"]


def test_broker_token_sends_the_email_only_when_given() -> None:
    token = {"accessToken": "tok-brokered", "expiresAt": 1, "tokenType": "Bearer"}
    server = ScriptedServer(json_response(201, token), json_response(201, token))

    async def scenario() -> None:
        async with make_async_client(server, api_key="gk_live_secret") as client:
            await client.broker_token("user-42", email="asha@example.com")
            await client.broker_token("user-43")

    run(scenario())
    assert server.body(0) == {"externalId": "user-42", "email": "asha@example.com"}
    assert server.body(1) == {"externalId": "user-43"}


def test_cancelling_the_task_during_a_backoff_stops_the_call() -> None:
    server = ScriptedServer(unavailable(), json_response(200, {}))

    async def scenario() -> None:
        waiting = asyncio.Event()

        async def sleep_forever(seconds: float) -> None:
            waiting.set()
            await asyncio.Event().wait()

        async with make_async_client(server, sleeper=sleep_forever) as client:  # type: ignore[arg-type]
            task = asyncio.ensure_future(client.get_notice("ntc_12345678"))
            await waiting.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    run(scenario())
    assert len(server.requests) == 1, "nothing is retried after the caller cancelled"


def test_an_async_sleeper_is_required_for_the_async_client() -> None:
    """A sync sleeper passed by mistake fails loudly instead of silently not waiting."""
    server = ScriptedServer(unavailable(), json_response(200, {}))
    slept: list = []

    async def scenario() -> None:
        async with make_async_client(server, sleeper=slept.append) as client:  # type: ignore[arg-type]
            await client.get_notice("ntc_12345678")

    with pytest.raises(TypeError):
        run(scenario())
    assert slept == [0.5]


def test_the_default_sleeper_really_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list = []

    async def fake_sleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(asyncio, "sleep", fake_sleep)
    server = ScriptedServer(unavailable("1.5"), json_response(200, {}))

    async def scenario() -> None:
        client = guard.AsyncGuardClient(
            "https://guard.test", http_client=httpx.AsyncClient(transport=httpx.MockTransport(server))
        )
        await client.get_notice("ntc_12345678")

    run(scenario())
    assert waits == [1.5]
