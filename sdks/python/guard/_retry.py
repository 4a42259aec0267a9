"""When to retry and how long to wait: the family's decision table (conformance/README.md).

Pure functions of their inputs; the clock and the random source are passed in, so tests pin every
branch without sleeping.
"""

from __future__ import annotations

import calendar
import email.utils
import re
from dataclasses import dataclass
from typing import Callable, Optional

from ._constants import INITIAL_RETRY_DELAY, MAX_RETRY_DELAY, RETRY_AFTER_CAP, RETRY_JITTER

__all__ = ["AttemptFailure", "RetryDecision", "backoff_delay", "parse_retry_after", "decide_retry"]


@dataclass(frozen=True)
class AttemptFailure:
    """What one attempt came to, as far as retrying is concerned.

    ``kind`` is ``"connection"``, ``"timeout"`` or ``"status"`` (then ``status`` and the raw
    ``Retry-After`` header, if any, are set).
    """

    kind: str
    status: Optional[int] = None
    retry_after: Optional[str] = None


@dataclass(frozen=True)
class RetryDecision:
    retry: bool
    reason: str
    delay: float = 0.0
    """Seconds to wait before the retry (0 when ``retry`` is false)."""


def backoff_delay(retry_number: int, random: Callable[[], float]) -> float:
    """Exponential backoff before retry ``retry_number`` (1-based), capped, minus up to 25 % jitter."""
    base = min(INITIAL_RETRY_DELAY * 2.0 ** (retry_number - 1), MAX_RETRY_DELAY)
    return base * (1 - RETRY_JITTER * random())


_DELTA_SECONDS = re.compile(r"[0-9]+(?:\.[0-9]+)?")
_LETTER = re.compile(r"[A-Za-z]")


def parse_retry_after(value: Optional[str], now: float) -> Optional[float]:
    """``Retry-After`` in seconds: delta-seconds (integer or decimal) or an HTTP-date, where a date
    in the past means 0. ``None`` when absent or unparseable, so the caller falls back to backoff.
    ``now`` is seconds since the epoch.
    """
    if value is None:
        return None
    text = value.strip()
    if _DELTA_SECONDS.fullmatch(text):
        return float(text)
    if not _LETTER.search(text):
        return None
    parsed = email.utils.parsedate_tz(text)
    if parsed is None:
        return None
    # HTTP-dates are always GMT; a zone-less asctime() date is read as GMT too.
    when = calendar.timegm(parsed[:6]) - (parsed[9] or 0)
    return max(0.0, when - now)


def decide_retry(
    *,
    failure: AttemptFailure,
    retries_so_far: int,
    max_retries: int,
    safe_to_repeat: bool,
    now: float,
    random: Callable[[], float],
    cancelled: bool = False,
) -> RetryDecision:
    """The one place that decides whether a failed attempt is retried, each branch with its reason.

    The order is the family's: cancelled, budget, safety, connection/timeout, 429/5xx, the rest.
    """
    if cancelled:
        return RetryDecision(False, "the caller cancelled")
    if retries_so_far >= max_retries:
        return RetryDecision(False, "retries exhausted")
    if not safe_to_repeat:
        return RetryDecision(False, "not safe to repeat: a repeat could act twice")
    if failure.kind == "connection":
        return RetryDecision(True, "connection failed", backoff_delay(retries_so_far + 1, random))
    if failure.kind == "timeout":
        return RetryDecision(True, "attempt timed out", backoff_delay(retries_so_far + 1, random))
    status = failure.status if failure.status is not None else 0
    if status != 429 and not 500 <= status <= 599:
        return RetryDecision(False, f"status {status} cannot change on a repeat")
    retry_after = parse_retry_after(failure.retry_after, now)
    if retry_after is None:
        return RetryDecision(True, f"status {status}, backing off", backoff_delay(retries_so_far + 1, random))
    if retry_after > RETRY_AFTER_CAP:
        return RetryDecision(False, f"Retry-After {failure.retry_after} is beyond the {RETRY_AFTER_CAP:g} s cap")
    return RetryDecision(True, f"status {status}, Retry-After honoured", retry_after)
