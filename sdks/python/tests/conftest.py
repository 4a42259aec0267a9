"""Shared test fixtures: paths into the monorepo and a scripted fake transport.

Transport tests run on ``httpx.MockTransport`` with an injected sleeper, random source and clock,
so no test sleeps for real and every recorded delay is exact.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Union

import httpx
import pytest

import guard

SDK_ROOT = Path(__file__).resolve().parent.parent
REPO_ROOT = SDK_ROOT.parent.parent
CONTRACT = REPO_ROOT / "contract"
CONFORMANCE = REPO_ROOT / "conformance"
BASE_URL = "https://guard.test"

Answer = Union[httpx.Response, Exception, Callable[[httpx.Request], httpx.Response]]


def json_response(status: int, body: Any = None, headers: Optional[Dict[str, str]] = None) -> httpx.Response:
    content = b"" if body is None else json.dumps(body).encode("utf-8")
    all_headers = {"content-type": "application/json", **(headers or {})}
    return httpx.Response(status, content=content, headers=all_headers)


class ScriptedServer:
    """Answers requests from a script (a response, an exception to raise, or a function), records
    every request, and answers 200 ``{}`` once the script runs out."""

    def __init__(self, *answers: Answer) -> None:
        self.script: List[Answer] = list(answers)
        self.requests: List[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        request.read()
        self.requests.append(request)
        answer = self.script.pop(0) if self.script else json_response(200, {})
        if isinstance(answer, Exception):
            raise answer
        if callable(answer):
            return answer(request)
        return answer

    def header(self, name: str) -> List[Optional[str]]:
        return [request.headers.get(name) for request in self.requests]

    def body(self, index: int = -1) -> Any:
        return json.loads(self.requests[index].content)


class Recorder:
    """A sleeper that records the delays it was asked for instead of sleeping."""

    def __init__(self) -> None:
        self.delays: List[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


class AsyncRecorder(Recorder):
    async def __call__(self, seconds: float) -> None:  # type: ignore[override]
        self.delays.append(seconds)


NOW = 1_700_000_000.0


def make_client(server: ScriptedServer, sleeper: Optional[Recorder] = None, **options: Any) -> guard.GuardClient:
    """A GuardClient on the scripted server: jitter pinned to 0 (full backoff), clock pinned to NOW."""
    options.setdefault("random", lambda: 0.0)
    options.setdefault("now", lambda: NOW)
    return guard.GuardClient(
        BASE_URL,
        http_client=httpx.Client(transport=httpx.MockTransport(server)),
        sleep=sleeper if sleeper is not None else Recorder(),
        **options,
    )


def make_async_client(
    server: ScriptedServer, sleeper: Optional[AsyncRecorder] = None, **options: Any
) -> guard.AsyncGuardClient:
    options.setdefault("random", lambda: 0.0)
    options.setdefault("now", lambda: NOW)
    return guard.AsyncGuardClient(
        BASE_URL,
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)),
        sleep=sleeper if sleeper is not None else AsyncRecorder(),
        **options,
    )


@pytest.fixture
def sleeper() -> Recorder:
    return Recorder()


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))
