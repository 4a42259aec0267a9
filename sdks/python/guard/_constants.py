"""Transport constants shared by the whole SDK family (conformance/README.md, "Transport constants").

The Node, Python and JVM SDKs use the same numbers; a test compares these with the README table.
Python speaks seconds where Node speaks milliseconds.
"""

from __future__ import annotations

from ._version import PACKAGE_NAME, __version__

DEFAULT_MAX_RETRIES = 2
"""Retries after the first attempt, so at most three attempts."""

INITIAL_RETRY_DELAY = 0.5
"""Seconds before retry 1 when the server gave no usable ``Retry-After``."""

MAX_RETRY_DELAY = 8.0
"""Upper bound, in seconds, of the computed exponential backoff."""

RETRY_JITTER = 0.25
"""Jitter takes off up to this fraction of the backoff, so clients that failed together spread out."""

RETRY_AFTER_CAP = 60.0
"""The longest ``Retry-After`` (seconds) honoured inside one call; a longer one ends the call."""

DEFAULT_TIMEOUT = 30.0
"""Seconds per attempt."""

RETRY_COUNT_HEADER = "X-Guard-Retry-Count"
SDK_HEADER = "X-Guard-SDK"
IDEMPOTENCY_KEY_HEADER = "Idempotency-Key"
SDK_HEADER_VALUE = f"{PACKAGE_NAME}/{__version__}"

# Headers the SDK owns: a caller's per-request headers never replace them.
SDK_OWNED_HEADERS = frozenset(name.lower() for name in ("Authorization", SDK_HEADER, RETRY_COUNT_HEADER))
