"""Paged lists (contract 1.8.0): every list method takes ``limit`` and ``cursor`` and returns
``nextCursor``, and its ``iter_*`` companion walks every page, sending each page's cursor back, in both
clients."""

from __future__ import annotations

import asyncio
from typing import Any, Dict, List
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from conftest import ScriptedServer, json_response, make_async_client, make_client

import guard
from guard._operations import OPERATIONS, Operation


def unavailable_response() -> httpx.Response:
    return json_response(503, {"code": "UNAVAILABLE", "error": "down"}, {"retry-after": "0"})


PAGED = [operation for operation in OPERATIONS.values() if operation.pages]


def query_of(request: httpx.Request) -> Dict[str, List[str]]:
    return parse_qs(urlsplit(str(request.url)).query)


def pages(field: str) -> List[httpx.Response]:
    return [
        json_response(200, {field: [{"n": 1}, {"n": 2}], "nextCursor": "c1"}),
        json_response(200, {field: [{"n": 3}], "nextCursor": "c2"}),
        json_response(200, {field: [], "nextCursor": None}),
    ]


def positional(operation: Operation) -> List[Any]:
    return ["org_9f2c4a7b1d3e" for param in operation.params if param.positional]


def test_the_paged_lists_are_the_contracts_list_routes() -> None:
    assert {operation.method_name for operation in PAGED} == {
        "getNotices",
        "listDsrRequests",
        "listGrievances",
        "listGateDecisions",
        "listGateAlerts",
        "listDueRetentions",
        "listBreaches",
        "listCrossBorderTransfers",
    }
    assert {operation.iterator_name for operation in PAGED} == {
        "iter_notices",
        "iter_dsr_requests",
        "iter_grievances",
        "iter_gate_decisions",
        "iter_gate_alerts",
        "iter_due_retentions",
        "iter_breaches",
        "iter_cross_border_transfers",
    }


@pytest.mark.parametrize("operation", PAGED, ids=lambda op: op.method_name)
def test_a_list_call_sends_limit_and_cursor_and_returns_next_cursor(operation: Operation) -> None:
    server = ScriptedServer(json_response(200, {operation.pages: [], "nextCursor": "abc"}))
    client = make_client(server, api_key="gk_test_key", access_token="tok")
    page = getattr(client, operation.python_name)(*positional(operation), limit=25, cursor="prev")
    assert page["nextCursor"] == "abc"
    assert query_of(server.requests[0]) == {"limit": ["25"], "cursor": ["prev"]}


@pytest.mark.parametrize("operation", PAGED, ids=lambda op: op.method_name)
def test_the_iterator_walks_every_page_in_the_sync_client(operation: Operation) -> None:
    server = ScriptedServer(*pages(operation.pages))
    client = make_client(server, api_key="gk_test_key", access_token="tok")
    items = list(getattr(client, operation.iterator_name)(*positional(operation), limit=2))
    assert [item["n"] for item in items] == [1, 2, 3]
    sent = [query_of(request) for request in server.requests]
    assert sent == [{"limit": ["2"]}, {"limit": ["2"], "cursor": ["c1"]}, {"limit": ["2"], "cursor": ["c2"]}]


@pytest.mark.parametrize("operation", PAGED, ids=lambda op: op.method_name)
def test_the_iterator_walks_every_page_in_the_async_client(operation: Operation) -> None:
    server = ScriptedServer(*pages(operation.pages))

    async def walk() -> List[Any]:
        client = make_async_client(server, api_key="gk_test_key", access_token="tok")
        try:
            return [item async for item in getattr(client, operation.iterator_name)(*positional(operation))]
        finally:
            await client.aclose()

    assert [item["n"] for item in asyncio.run(walk())] == [1, 2, 3]
    assert [query_of(request).get("cursor") for request in server.requests] == [None, ["c1"], ["c2"]]


def test_the_iterator_starts_at_a_given_cursor_and_is_lazy() -> None:
    server = ScriptedServer(*pages("requests"))
    client = make_client(server, access_token="tok")
    walk = client.iter_dsr_requests(cursor="start")
    assert server.requests == []  # nothing is fetched until the first item is asked for
    assert next(walk)["n"] == 1
    assert query_of(server.requests[0]) == {"cursor": ["start"]}
    assert len(server.requests) == 1


def test_each_page_is_retried_on_its_own() -> None:
    first, second, last = pages("requests")
    server = ScriptedServer(first, unavailable_response(), second, last)
    client = make_client(server, access_token="tok")
    assert [item["n"] for item in client.iter_dsr_requests()] == [1, 2, 3]
    assert [query_of(request).get("cursor") for request in server.requests] == [None, ["c1"], ["c1"], ["c2"]]


def test_an_api_error_on_a_later_page_reaches_the_caller() -> None:
    refused = json_response(400, {"error": "bad cursor", "code": "VALIDATION_ERROR", "field": "cursor"})
    server = ScriptedServer(pages("requests")[0], refused)
    client = make_client(server, access_token="tok")
    walk = client.iter_dsr_requests()
    assert [next(walk)["n"], next(walk)["n"]] == [1, 2]
    with pytest.raises(guard.GuardApiError) as raised:
        next(walk)
    assert raised.value.status == 400


def test_an_answer_without_next_cursor_from_an_older_server_is_the_last_page() -> None:
    server = ScriptedServer(json_response(200, {"requests": [{"n": 1}]}))
    client = make_client(server, access_token="tok")
    assert [item["n"] for item in client.iter_dsr_requests()] == [1]
    assert len(server.requests) == 1
