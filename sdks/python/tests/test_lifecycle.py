"""The clients release their connections: the context managers close the HTTP client, and no
connection outlives it (checked on a real local server that counts open sockets)."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from local_server import CountingServer

import guard


@pytest.fixture
def server():
    with CountingServer() as running:
        yield running


def test_the_context_manager_closes_the_client_and_its_connections(server: CountingServer) -> None:
    with guard.GuardClient(server.base_url) as client:
        for _ in range(3):
            client.get_organization("local")
        # Keep-alive: three calls, one connection, still open while the client lives.
        assert server.wait_for_open_connections(1) == 1
        assert server.accepted == 1
        assert not client.is_closed
    assert client.is_closed
    assert server.wait_for_open_connections(0) == 0


def test_without_close_the_connection_stays_open(server: CountingServer) -> None:
    """The control for the test above: the count really does see a connection left open."""
    client = guard.GuardClient(server.base_url)
    try:
        client.get_organization("local")
        assert server.wait_for_open_connections(0, timeout=0.3) == 1
    finally:
        client.close()
    assert server.wait_for_open_connections(0) == 0


def test_errors_inside_the_block_still_close_the_client(server: CountingServer) -> None:
    with pytest.raises(RuntimeError), guard.GuardClient(server.base_url) as client:
        client.get_organization("local")
        raise RuntimeError("the caller's own failure")
    assert client.is_closed
    assert server.wait_for_open_connections(0) == 0


def test_many_calls_and_failures_do_not_pile_up_connections(server: CountingServer) -> None:
    with guard.GuardClient(server.base_url) as client:
        for _ in range(20):
            client.get_organization("local")
        with pytest.raises(guard.GuardMissingCredentialError):
            client.list_dsr_requests()
        assert server.accepted == 1
    assert server.wait_for_open_connections(0) == 0


def test_a_client_passed_in_stays_open_for_its_owner(server: CountingServer) -> None:
    with httpx.Client() as http_client:
        with guard.GuardClient(server.base_url, http_client=http_client) as client:
            client.get_organization("local")
        assert not http_client.is_closed
        assert server.wait_for_open_connections(0, timeout=0.3) == 1
    assert server.wait_for_open_connections(0) == 0


def test_the_async_context_manager_closes_the_client_and_its_connections(server: CountingServer) -> None:
    async def scenario() -> guard.AsyncGuardClient:
        async with guard.AsyncGuardClient(server.base_url) as client:
            await asyncio.gather(*(client.get_organization("local") for _ in range(3)))
            assert server.open_connections >= 1
        return client

    client = asyncio.run(scenario())
    assert client.is_closed
    assert server.wait_for_open_connections(0) == 0


def test_async_aclose_is_close_for_asyncio_helpers(server: CountingServer) -> None:
    async def scenario() -> guard.AsyncGuardClient:
        client = guard.AsyncGuardClient(server.base_url)
        await client.get_organization("local")
        await client.aclose()  # what contextlib.aclosing() calls
        return client

    client = asyncio.run(scenario())
    assert client.is_closed
    assert server.wait_for_open_connections(0) == 0
