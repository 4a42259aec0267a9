"""The registers' partner routes (contract 2.15.0, tag ``registers``), in both clients: each list sends
the service key, ``limit`` and ``cursor`` to its route, its ``iter_*`` companion walks every page, reads
are retried, ``confirm_erasure_executed`` posts to its erasure and is retried (the contract makes a
repeat answer the first confirmation), a missing key fails locally, and a capability that is off
surfaces as ``NOT_FOUND``."""

from __future__ import annotations

import asyncio
from typing import Any, Dict, List

import pytest
from conftest import ScriptedServer, json_response, make_async_client, make_client

import guard

DUE: Dict[str, Any] = {
    "scheduledErasureId": "ser_1",
    "userId": "user-1",
    "scheduledFor": 1_700_000_000_000,
    "reason": "Marketing: 3 years since the last interaction",
    "preNotificationSentAt": 1_699_800_000_000,
}
BREACH: Dict[str, Any] = {
    "breachId": "brc_1",
    "description": "Backup bucket readable without authentication",
    "discoveredAt": 1_700_000_000_000,
    "status": "reported_board_pending",
}
TRANSFER: Dict[str, Any] = {
    "activityId": "rpa_1",
    "activityName": "Support tickets",
    "purpose": "Customer support",
    "dataCategories": ["email"],
    "legalBasis": "consent",
    "createdAt": 1_700_000_000_000,
}


def calls(server: ScriptedServer) -> List[str]:
    return [
        f"{request.method} {request.url.raw_path.decode()} {request.headers.get('authorization', '-')}"
        for request in server.requests
    ]


def test_each_register_list_calls_its_route_with_the_service_key() -> None:
    server = ScriptedServer(
        json_response(200, {"due": [DUE], "nextCursor": "d2"}),
        json_response(200, {"breaches": [BREACH], "nextCursor": None}),
        json_response(200, {"transfers": [TRANSFER], "nextCursor": None}),
    )
    client = make_client(server, api_key="gk_test_key")
    due: guard.DueRetentionList = client.list_due_retentions(limit=1, cursor="d1")
    breaches: guard.BreachList = client.list_breaches()
    transfers: guard.CrossBorderTransferList = client.list_cross_border_transfers(cursor="a.b")
    assert due == {"due": [DUE], "nextCursor": "d2"}
    assert breaches["breaches"] == [BREACH]
    assert transfers["transfers"] == [TRANSFER]
    assert calls(server) == [
        "GET /api/v1/retention/due?limit=1&cursor=d1 Bearer gk_test_key",
        "GET /api/v1/breaches Bearer gk_test_key",
        "GET /api/v1/cross-border/transfers?cursor=a.b Bearer gk_test_key",
    ]


def test_the_register_iterators_walk_every_page() -> None:
    server = ScriptedServer(
        json_response(200, {"due": [DUE, {**DUE, "scheduledErasureId": "ser_2"}], "nextCursor": "p2"}),
        json_response(200, {"due": [{**DUE, "scheduledErasureId": "ser_3"}], "nextCursor": None}),
        json_response(200, {"breaches": [BREACH], "nextCursor": None}),
        json_response(200, {"transfers": [], "nextCursor": None}),
    )
    client = make_client(server, api_key="gk_test_key")
    assert [item["scheduledErasureId"] for item in client.iter_due_retentions(limit=2)] == ["ser_1", "ser_2", "ser_3"]
    assert [item["breachId"] for item in client.iter_breaches()] == ["brc_1"]
    assert list(client.iter_cross_border_transfers(limit=50)) == []
    assert calls(server) == [
        "GET /api/v1/retention/due?limit=2 Bearer gk_test_key",
        "GET /api/v1/retention/due?limit=2&cursor=p2 Bearer gk_test_key",
        "GET /api/v1/breaches Bearer gk_test_key",
        "GET /api/v1/cross-border/transfers?limit=50 Bearer gk_test_key",
    ]


def test_the_async_client_has_the_same_register_calls() -> None:
    server = ScriptedServer(
        json_response(200, {"due": [DUE], "nextCursor": None}),
        json_response(200, {"breaches": [BREACH], "nextCursor": "b2"}),
        json_response(200, {"breaches": [], "nextCursor": None}),
        json_response(200, {"transfers": [TRANSFER], "nextCursor": None}),
    )

    async def run() -> List[Any]:
        async with make_async_client(server, api_key="gk_test_key") as client:
            due = await client.list_due_retentions()
            breaches = [item["breachId"] async for item in client.iter_breaches(limit=1)]
            transfers = await client.list_cross_border_transfers(limit=5)
            return [due["due"], breaches, transfers["transfers"]]

    assert asyncio.run(run()) == [[DUE], ["brc_1"], [TRANSFER]]
    assert calls(server) == [
        "GET /api/v1/retention/due Bearer gk_test_key",
        "GET /api/v1/breaches?limit=1 Bearer gk_test_key",
        "GET /api/v1/breaches?limit=1&cursor=b2 Bearer gk_test_key",
        "GET /api/v1/cross-border/transfers?limit=5 Bearer gk_test_key",
    ]


def test_a_register_read_is_retried_and_a_capability_that_is_off_is_not_found() -> None:
    server = ScriptedServer(
        json_response(503, {"code": "UNAVAILABLE", "error": "down"}, {"retry-after": "0"}),
        json_response(200, {"breaches": [], "nextCursor": None}),
        json_response(404, {"code": "NOT_FOUND", "error": "Not found"}),
    )
    client = make_client(server, api_key="gk_test_key")
    assert client.list_breaches() == {"breaches": [], "nextCursor": None}
    with pytest.raises(guard.GuardApiError) as raised:
        client.list_cross_border_transfers()
    assert (raised.value.status, raised.value.code) == (404, "NOT_FOUND")
    assert server.header("x-guard-retry-count") == ["0", "1", "0"]


def test_a_missing_api_key_fails_before_any_request() -> None:
    server = ScriptedServer()
    client = make_client(server)
    for call in (client.list_due_retentions, client.list_breaches, client.list_cross_border_transfers):
        with pytest.raises(guard.GuardMissingCredentialError):
            call()
    with pytest.raises(guard.GuardMissingCredentialError):
        list(client.iter_cross_border_transfers())
    with pytest.raises(guard.GuardMissingCredentialError):
        client.confirm_erasure_executed("ser_1")
    assert server.requests == []


EXECUTED: Dict[str, Any] = {"scheduledErasureId": "ser_1", "status": "executed", "executedAt": 1_700_000_100_000}


def test_confirm_erasure_executed_posts_executed_at_or_an_empty_body() -> None:
    server = ScriptedServer(json_response(200, EXECUTED), json_response(200, EXECUTED))
    client = make_client(server, api_key="gk_test_key")
    result: guard.ErasureExecution = client.confirm_erasure_executed("ser_1", executed_at=1_700_000_100_000)
    assert result == EXECUTED
    assert client.confirm_erasure_executed("ser/2") == EXECUTED
    assert calls(server) == [
        "POST /api/v1/retention/erasures/ser_1/executed Bearer gk_test_key",
        "POST /api/v1/retention/erasures/ser%2F2/executed Bearer gk_test_key",
    ]
    assert [server.body(0), server.body(1)] == [{"executedAt": 1_700_000_100_000}, {}]
    assert server.header("idempotency-key") == [None, None]


def test_confirm_erasure_executed_is_retried_but_409_and_404_are_not(sleeper: Any) -> None:
    server = ScriptedServer(
        json_response(503, {"code": "UNAVAILABLE", "error": "down"}),
        json_response(200, EXECUTED),
        json_response(409, {"code": "CONFLICT", "error": "The erasure was cancelled"}),
        json_response(404, {"code": "NOT_FOUND", "error": "No scheduled erasure"}),
    )
    client = make_client(server, sleeper, api_key="gk_test_key")
    assert client.confirm_erasure_executed("ser_1")["executedAt"] == 1_700_000_100_000
    assert sleeper.delays == [0.5]
    for erasure_id, status, code in (("ser_2", 409, "CONFLICT"), ("ser_9", 404, "NOT_FOUND")):
        with pytest.raises(guard.GuardApiError) as raised:
            client.confirm_erasure_executed(erasure_id)
        assert (raised.value.status, raised.value.code) == (status, code)
    assert len(server.requests) == 4


def test_the_async_client_confirms_an_erasure() -> None:
    server = ScriptedServer(json_response(200, EXECUTED))

    async def run() -> Any:
        async with make_async_client(server, api_key="gk_test_key") as client:
            return await client.confirm_erasure_executed("ser_1", executed_at=1_700_000_100_000)

    assert asyncio.run(run()) == EXECUTED
    assert server.body(0) == {"executedAt": 1_700_000_100_000}
