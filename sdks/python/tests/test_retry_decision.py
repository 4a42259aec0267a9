"""The retry decision table, the backoff and Retry-After parsing, branch by branch (pure functions),
and the transport constants against the family's table in conformance/README.md."""

from __future__ import annotations

import re
from typing import Any

import pytest
from conftest import CONFORMANCE

import guard
from guard import AttemptFailure, backoff_delay, decide_retry, parse_retry_after

NOW = 1_700_000_000.0


def decide(failure: AttemptFailure, **overrides: Any) -> guard.RetryDecision:
    inputs: dict = dict(
        failure=failure, retries_so_far=0, max_retries=2, safe_to_repeat=True, now=NOW, random=lambda: 0.0
    )
    inputs.update(overrides)
    return decide_retry(**inputs)


def status(code: int, retry_after: Any = None) -> AttemptFailure:
    return AttemptFailure("status", status=code, retry_after=retry_after)


# ----- the table, in order ---------------------------------------------------------------------


def test_1_cancelled_is_never_retried_even_when_everything_else_says_yes() -> None:
    decision = decide(AttemptFailure("connection"), cancelled=True)
    assert not decision.retry and "cancel" in decision.reason


@pytest.mark.parametrize("used,budget", [(2, 2), (3, 2), (0, 0)])
def test_2_spent_budget_stops(used: int, budget: int) -> None:
    decision = decide(status(503), retries_so_far=used, max_retries=budget)
    assert not decision.retry and decision.reason == "retries exhausted"


def test_3_unsafe_request_is_not_repeated_even_on_a_connection_failure() -> None:
    decision = decide(AttemptFailure("connection"), safe_to_repeat=False)
    assert not decision.retry and "not safe" in decision.reason


@pytest.mark.parametrize("kind", ["connection", "timeout"])
def test_4_no_answer_is_retried_with_backoff(kind: str) -> None:
    decision = decide(AttemptFailure(kind), retries_so_far=1)
    assert decision.retry and decision.delay == 1.0  # 0.5 s * 2^(2-1), no jitter


@pytest.mark.parametrize("code", [429, 500, 502, 503, 504, 599])
def test_5_429_and_every_5xx_are_retried(code: int) -> None:
    decision = decide(status(code))
    assert decision.retry and decision.delay == 0.5


@pytest.mark.parametrize("code", [200, 201, 204, 301, 304, 400, 401, 403, 404, 409, 413, 415, 422, 426, 600])
def test_6_anything_else_is_final(code: int) -> None:
    decision = decide(status(code))
    assert not decision.retry and str(code) in decision.reason


# ----- delays ----------------------------------------------------------------------------------


@pytest.mark.parametrize("retry_number,full", [(1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0), (5, 8.0), (6, 8.0), (30, 8.0)])
def test_backoff_doubles_up_to_the_cap_and_jitter_takes_off_at_most_a_quarter(retry_number: int, full: float) -> None:
    assert backoff_delay(retry_number, lambda: 0.0) == full
    assert backoff_delay(retry_number, lambda: 0.999999) == pytest.approx(full * 0.75, rel=1e-5)
    assert backoff_delay(retry_number, lambda: 0.5) == full * 0.875


def test_retry_after_is_honoured_exactly_up_to_the_cap() -> None:
    assert decide(status(503, "0")).delay == 0.0
    assert decide(status(429, "2.5")).delay == 2.5
    assert decide(status(503, "60")).delay == 60.0
    beyond = decide(status(429, "60.5"))
    assert not beyond.retry and "cap" in beyond.reason
    assert not decide(status(429, "120")).retry


def test_an_unparseable_retry_after_falls_back_to_backoff() -> None:
    decision = decide(status(503, "soon"), retries_so_far=2, max_retries=5)
    assert decision.retry and decision.delay == 2.0


@pytest.mark.parametrize(
    "header,expected",
    [
        ("3", 3.0),
        (" 3 ", 3.0),
        ("0", 0.0),
        ("1.25", 1.25),
        ("Tue, 14 Nov 2023 22:13:50 GMT", 30.0),  # IMF-fixdate, NOW + 30 s
        ("Tuesday, 14-Nov-23 22:13:50 GMT", 30.0),  # RFC 850
        ("Tue Nov 14 22:13:50 2023", 30.0),  # asctime, read as GMT
        ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0),  # in the past: no wait
        (None, None),
        ("", None),
        ("-1", None),
        ("1e3", None),
        ("3 seconds", None),
        (".5", None),
        ("12:00", None),
        ("not a date at all", None),
    ],
)
def test_parse_retry_after(header: Any, expected: Any) -> None:
    assert parse_retry_after(header, NOW) == expected


def test_an_http_date_beyond_the_cap_ends_the_call() -> None:
    decision = decide(status(503, "Tue, 14 Nov 2023 22:15:00 GMT"))  # NOW + 100 s
    assert not decision.retry


# ----- the family's constants ------------------------------------------------------------------


def _readme_constant(name: str) -> str:
    text = (CONFORMANCE / "README.md").read_text(encoding="utf-8")
    row = re.search(rf"^\| `{name}` \| ([^|]+) \|", text, re.MULTILINE)
    assert row, f"{name} is not in the conformance README's constants table"
    return row.group(1).strip()


def _seconds(text: str) -> float:
    match = re.fullmatch(r"([0-9.]+) s", text)
    assert match, text
    return float(match.group(1))


def test_constants_match_the_family_table() -> None:
    assert int(_readme_constant("DEFAULT_MAX_RETRIES")) == guard.DEFAULT_MAX_RETRIES == 2
    assert _seconds(_readme_constant("INITIAL_RETRY_DELAY")) == guard.INITIAL_RETRY_DELAY
    assert _seconds(_readme_constant("MAX_RETRY_DELAY")) == guard.MAX_RETRY_DELAY
    assert _seconds(_readme_constant("RETRY_AFTER_CAP")) == guard.RETRY_AFTER_CAP
    assert _seconds(_readme_constant("DEFAULT_TIMEOUT")) == guard.DEFAULT_TIMEOUT
    backoff = _readme_constant("BACKOFF")
    assert f"{guard.RETRY_JITTER:g} × random()" in backoff
    text = (CONFORMANCE / "README.md").read_text(encoding="utf-8")
    assert f"`{guard.RETRY_COUNT_HEADER}: <n>`" in text
    assert f"`guard-sdk/{guard.__version__}`" in text, "the README's example SDK header names this release"
