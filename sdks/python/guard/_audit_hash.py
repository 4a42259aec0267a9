"""The consent audit hash (contract/specs/audit-hash.md), byte-identical to contract 1.6.0, so an
integrator can recompute the hash Guard stored from their own records. Every case of
contract/vectors/audit-hash.json runs in tests/test_vectors.py.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any, List, Literal, Mapping, Optional, Sequence, TypedDict

from ._text import utf8

__all__ = [
    "AuditHashInput",
    "AuditFieldProblem",
    "canonicalize_audit_event",
    "compute_audit_hash",
    "validate_audit_fields",
]

AuditSource = Literal["brokered", "direct", "anonymous", "linked"]
_SOURCES = ("brokered", "direct", "anonymous", "linked")
_MAX_SAFE_INTEGER = 2**53 - 1


class _AuditHashInputRequired(TypedDict):
    organizationId: str
    noticeId: str
    noticeVersion: int
    purpose: str
    dataTypes: Sequence[str]
    givenAt: int


class AuditHashInput(_AuditHashInputRequired, total=False):
    """The consent event, with the wire's field names (a consent record as the API returns it fits)."""

    source: Optional[AuditSource]


class AuditFieldProblem(TypedDict):
    field: str
    """``organizationId``, ..., ``dataTypes[2]``, ``givenAt``, ``source``."""
    reason: str


def _utf16_key(text: str) -> bytes:
    # The contract's order is JavaScript's default sort: UTF-16 code units. Python compares code
    # points, which differs above U+FFFF (surrogates sort before U+E000-U+FFFF). Big-endian UTF-16
    # bytes compare exactly like code units; surrogatepass keeps lone surrogates comparable.
    return text.encode("utf-16-be", "surrogatepass")


def _decimal(value: Any) -> str:
    # JavaScript's String(n): an integral float such as 1.0 is written "1", as 1.6.0 wrote it.
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def canonicalize_audit_event(event: Mapping[str, Any]) -> str:
    """``organizationId|noticeId|noticeVersion|purpose|dataTypes|givenAt|source``, data types sorted
    by UTF-16 code units and joined with ``,``. Total, as in 1.6.0: call
    :func:`validate_audit_fields` first on anything you did not build yourself."""
    data_types = ",".join(sorted(event["dataTypes"], key=_utf16_key))
    source = event.get("source")
    return "|".join(
        [
            event["organizationId"],
            event["noticeId"],
            _decimal(event["noticeVersion"]),
            event["purpose"],
            data_types,
            _decimal(event["givenAt"]),
            "null" if source is None else source,
        ]
    )


def compute_audit_hash(secret: str, event: Mapping[str, Any]) -> str:
    """Lowercase hex HMAC-SHA256 of the canonical string, keyed with the UTF-8 bytes of ``secret``
    (the deployment's audit-hash secret, not a webhook secret). The secret comes first, as in the
    contract's reference implementation and every SDK of the family."""
    # A lone surrogate is written as U+FFFD, as in JavaScript; validate_audit_fields refuses those inputs.
    return hmac.new(utf8(secret), utf8(canonicalize_audit_event(event)), hashlib.sha256).hexdigest()


def _has_lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    except UnicodeDecodeError:
        return True
    return False


def _text_problem(value: Any, forbidden: str) -> Optional[str]:
    if not isinstance(value, str):
        return "must be a string"
    for separator in forbidden:
        if separator in value:
            return f"must not contain {separator}"
    if _has_lone_surrogate(value):
        return "must not contain an unpaired surrogate"
    return None


def _integer_problem(value: Any) -> Optional[str]:
    integral = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if isinstance(value, bool) or not integral or not 0 <= value <= _MAX_SAFE_INTEGER:
        return "must be an integer from 0 to 2^53 - 1"
    return None


def validate_audit_fields(event: Mapping[str, Any]) -> List[AuditFieldProblem]:
    """The problems that would let two different inputs share a canonical string (and so a hash),
    in field order; empty when the input is safe to hash. Mirrors what the server refuses with 400."""
    problems: List[AuditFieldProblem] = []

    def check(field: str, reason: Optional[str]) -> None:
        if reason:
            problems.append({"field": field, "reason": reason})

    check("organizationId", _text_problem(event.get("organizationId"), "|"))
    check("noticeId", _text_problem(event.get("noticeId"), "|"))
    check("noticeVersion", _integer_problem(event.get("noticeVersion")))
    check("purpose", _text_problem(event.get("purpose"), "|"))
    data_types = event.get("dataTypes")
    if isinstance(data_types, (str, bytes)) or not isinstance(data_types, Sequence):
        check("dataTypes", "must be a list of strings")
    else:
        for index, data_type in enumerate(data_types):
            reason = "must not be empty" if data_type == "" else _text_problem(data_type, "|,")
            check(f"dataTypes[{index}]", reason)
    check("givenAt", _integer_problem(event.get("givenAt")))
    source = event.get("source")
    if source is not None and source not in _SOURCES:
        check("source", "must be brokered, direct, anonymous, linked or None")
    return problems
