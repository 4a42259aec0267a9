"""Verifying Guard's webhook deliveries (contract/specs/webhooks.md; every case of
contract/vectors/webhook-signature.json runs in tests/test_vectors.py). One endpoint secret
(``whsec_…``) feeds both schemes, as a different key in each.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import math
import re
import time
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Union

from ._errors import GuardWebhookSecretError
from ._text import utf8

__all__ = [
    "DEFAULT_WEBHOOK_TOLERANCE_SECONDS",
    "WEBHOOK_SECRET_PREFIX",
    "StandardWebhookVerification",
    "verify_standard_webhook",
    "verify_webhook_signature",
]

WEBHOOK_SECRET_PREFIX = "whsec_"
DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300
"""The Standard Webhooks replay window, applied in both directions."""

RawBody = Union[str, bytes, bytearray, memoryview]

# WHATWG "ASCII whitespace" only: TAB, LF, FF, CR, SPACE. A NO-BREAK SPACE is not trimmed.
_ASCII_WHITESPACE = "\t\n\f\r "
_SHA256_HEX = re.compile(r"[0-9a-fA-F]{64}")
_CANONICAL_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
_DECIMAL_SECONDS = re.compile(r"[0-9]+")
_MAX_SAFE_INTEGER = 2**53 - 1


def _body_bytes(raw_body: RawBody) -> bytes:
    if isinstance(raw_body, str):
        return utf8(raw_body)
    if isinstance(raw_body, (bytes, bytearray, memoryview)):
        return bytes(raw_body)
    raise TypeError(
        f"raw_body must be the body as received (bytes, or str), not {type(raw_body).__name__}: "
        "a parsed and re-serialised body does not verify"
    )


def verify_webhook_signature(secret: str, raw_body: RawBody, signature_header: Optional[str]) -> bool:
    """Check ``X-DPDP-Signature`` (contract 1.6.0's header).

    True only when the header is exactly 64 hex digits (either case; surrounding ASCII whitespace
    ignored) equal, in constant time, to HMAC-SHA256 of the raw body keyed with the whole secret
    string. Pass the body exactly as received: re-serialised JSON does not verify. A missing or
    malformed header is ``False``, never an exception; a missing secret raises
    :class:`GuardWebhookSecretError`.
    """
    if not isinstance(secret, str) or secret == "":
        raise GuardWebhookSecretError("verify_webhook_signature needs the endpoint's secret (whsec_…)")
    body = _body_bytes(raw_body)
    if not isinstance(signature_header, str):
        return False
    digits = signature_header.strip(_ASCII_WHITESPACE)
    if not _SHA256_HEX.fullmatch(digits):
        return False
    return hmac.compare_digest(bytes.fromhex(digits), _dpdp_digest(secret, body))


def _dpdp_digest(secret: str, body: bytes) -> bytes:
    # Keyed with the whole secret string, `whsec_` included: what 1.6.0 verifiers already do.
    return hmac.new(utf8(secret), body, hashlib.sha256).digest()


@dataclass(frozen=True)
class StandardWebhookVerification:
    """The outcome of :func:`verify_standard_webhook`. Truthy exactly when ``valid``.

    ``reason`` (when not valid) is one of ``missing_header``, ``invalid_timestamp``,
    ``timestamp_too_old``, ``timestamp_too_new``, ``no_matching_signature``.
    """

    valid: bool
    reason: Optional[str] = None

    def __bool__(self) -> bool:
        return self.valid


def _standard_webhook_key(secret: Any) -> bytes:
    """The Standard Webhooks key: the base64 after ``whsec_`` (bare base64 is accepted too), which
    must be canonical padded standard base64 of at least one byte."""
    if not isinstance(secret, str):
        raise GuardWebhookSecretError("the webhook secret must be a string")
    encoded = secret[len(WEBHOOK_SECRET_PREFIX) :] if secret.startswith(WEBHOOK_SECRET_PREFIX) else secret
    key = b""
    if _CANONICAL_BASE64.fullmatch(encoded):
        try:
            key = base64.b64decode(encoded, validate=True)
        except binascii.Error:
            key = b""
    # The round trip refuses non-zero unused bits, so one key has exactly one accepted spelling.
    if not key or base64.b64encode(key).decode("ascii") != encoded:
        raise GuardWebhookSecretError(
            f'the webhook secret must be "{WEBHOOK_SECRET_PREFIX}" followed by padded standard base64, '
            "as the dashboard shows it"
        )
    return key


def _header(headers: Mapping[str, Any], name: str) -> Any:
    """Case-insensitive lookup that works for dicts and for frameworks' header objects. Two spellings
    of one name in a plain dict count as "not a single value"."""
    matches = [key for key in headers if isinstance(key, str) and key.lower() == name]
    if len(matches) == 1:
        return headers[matches[0]]
    if len(matches) > 1:
        return [headers[key] for key in matches]
    # Case-insensitive header objects whose iteration is not their names (werkzeug yields pairs)
    # still answer get() in any case.
    get = getattr(headers, "get", None)
    return get(name) if callable(get) else None


def _present(value: Any) -> bool:
    return isinstance(value, str) and value != ""


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return float(value)


def verify_standard_webhook(
    secret: str,
    raw_body: RawBody,
    headers: Mapping[str, Any],
    *,
    tolerance_seconds: float = DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
    now_seconds: Optional[float] = None,
) -> StandardWebhookVerification:
    """Check the Standard Webhooks headers (``webhook-id``, ``webhook-timestamp``, ``webhook-signature``).

    In this order: all three present; the timestamp is decimal digits within ``tolerance_seconds``
    of now, both ways (exactly the tolerance still passes); some ``v1`` entry of the space-separated
    list equals the expected signature exactly, compared in constant time. The signed timestamp is
    the header text as received. A malformed secret raises :class:`GuardWebhookSecretError`, a
    negative or non-finite tolerance or clock ``ValueError``: configuration mistakes, not forged
    deliveries. De-duplicate on ``webhook-id`` yourself: delivery is at least once.
    """
    key = _standard_webhook_key(secret)
    tolerance = _number("tolerance_seconds", tolerance_seconds)
    if tolerance < 0:
        raise ValueError(f"tolerance_seconds must not be negative, got {tolerance_seconds!r}")
    now = math.floor(time.time()) if now_seconds is None else _number("now_seconds", now_seconds)
    body = _body_bytes(raw_body)

    webhook_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if not (_present(webhook_id) and _present(timestamp) and _present(signatures)):
        return StandardWebhookVerification(False, "missing_header")

    # Leading zeros are allowed, so bound the significant digits before int() reads them.
    if not _DECIMAL_SECONDS.fullmatch(timestamp) or len(timestamp.lstrip("0")) > len(str(_MAX_SAFE_INTEGER)):
        return StandardWebhookVerification(False, "invalid_timestamp")
    seconds = int(timestamp.lstrip("0") or "0")
    if seconds > _MAX_SAFE_INTEGER:
        return StandardWebhookVerification(False, "invalid_timestamp")
    if now - seconds > tolerance:
        return StandardWebhookVerification(False, "timestamp_too_old")
    if seconds - now > tolerance:
        return StandardWebhookVerification(False, "timestamp_too_new")

    expected = _standard_signature(key, _standard_signed_content(webhook_id, timestamp, body)).encode("ascii")
    # Single spaces separate entries (key rotation sends several); a tab belongs to an entry.
    for entry in signatures.split(" "):
        version, comma, digest = entry.partition(",")
        if not comma or version != "v1":
            continue
        if hmac.compare_digest(utf8(digest), expected):
            return StandardWebhookVerification(True)
    return StandardWebhookVerification(False, "no_matching_signature")


def _standard_signed_content(webhook_id: str, timestamp: str, body: bytes) -> bytes:
    # The timestamp text exactly as received: "01700000001" is signed as such, never re-formatted.
    return utf8(f"{webhook_id}.{timestamp}.") + body


def _standard_signature(key: bytes, signed_content: bytes) -> str:
    """The digest text of one ``v1,<digest>`` entry: standard, padded base64."""
    return base64.b64encode(hmac.new(key, signed_content, hashlib.sha256).digest()).decode("ascii")
