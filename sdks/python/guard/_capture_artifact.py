"""The offline capture artefact ``dpdpcca/2`` (contract/specs/capture-artifact.md): the canonical
string an enrolled device signs, and the ECDSA P-256 check of its signature, so a server fronting a
fleet can pre-check sessions before :meth:`GuardClient.sync_offline_captures` (Guard verifies again
either way). Every case of contract/vectors/capture-artifact.json runs in tests/test_offline.py.

The canonical string needs only the standard library. Verifying a signature needs the
``cryptography`` package (``pip install "guard-sdk[capture]"``): the standard library has no ECDSA,
and a hand-written curve is not something to ship in a consent SDK.
"""

from __future__ import annotations

import base64
import re
from typing import Any, List, Literal, Mapping, Optional, Sequence, Tuple, TypedDict

from ._text import utf8

__all__ = [
    "CAPTURE_ARTIFACT_FORMAT",
    "CaptureArtifactError",
    "CaptureArtifactSession",
    "canonicalize_capture_artifact",
    "verify_capture_signature",
]

CAPTURE_ARTIFACT_FORMAT = "dpdpcca/2"
_CHANNELS = ("qr", "agent_app", "pos", "async_link", "ivr")
_STATUSES = ("opt_in", "opt_out")
_HANDLE_KINDS = ("phone_hash", "uhid", "cbs_ref", "none")
_MAX_SAFE_INTEGER = 2**53 - 1
_SIGNATURE_BYTES = 64  # raw r||s of P-256 (IEEE P1363), never DER
_STANDARD_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
_SURROGATE = re.compile("[\ud800-\udfff]")


class CapturePurposeGrant(TypedDict, total=False):
    purposeKey: str
    status: Literal["opt_in", "opt_out"]
    purposeLabel: str
    category: Literal["essential", "non_essential"]


class PrincipalHandle(TypedDict):
    kind: Literal["phone_hash", "uhid", "cbs_ref", "none"]
    value: str


class _CaptureArtifactSessionRequired(TypedDict):
    clientSessionId: str
    organizationId: str
    deviceId: str
    noticeId: str
    noticeVersion: int
    noticeLocale: str
    purposeGrants: Sequence[CapturePurposeGrant]
    dataTypes: Sequence[str]
    capturedAtClient: int
    channel: Literal["qr", "agent_app", "pos", "async_link", "ivr"]


class CaptureArtifactSession(_CaptureArtifactSessionRequired, total=False):
    """The signed content of an ``OfflineCaptureSession`` (wire field names) plus ``organizationId``,
    which the wire session does not carry: the device takes it from its configuration, Guard from
    the device's enrolment. Unsigned fields (``purposeLabel``, ``linkId``, ...) are ignored."""

    principalHandle: Optional[PrincipalHandle]


class CaptureArtifactError(ValueError):
    """The session cannot be made into an artefact; Guard answers it ``rejected`` / ``invalid_session``."""

    def __init__(self, code: str, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.code = code
        """``duplicate_purpose_key`` or ``invalid_field``."""
        self.field = field
        """The path of the offending value, e.g. ``purposeGrants[2].purposeKey``."""


def _text(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise CaptureArtifactError("invalid_field", field, "must be a string")
    # A surrogate left in a Python str is unpaired (JSON pairs are joined on parsing): it has no
    # UTF-8 form, and JavaScript would write U+FFFD in its place, so the signed bytes would differ.
    if _SURROGATE.search(value):
        raise CaptureArtifactError("invalid_field", field, "must be well-formed Unicode (no unpaired surrogate)")
    return value


def _integer(value: Any, field: str) -> str:
    # JSON numbers: 3.0 is the integer 3 in JavaScript, as in every other SDK of the family.
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _MAX_SAFE_INTEGER:
        raise CaptureArtifactError("invalid_field", field, "must be a non-negative safe integer")
    return str(value)


def _one_of(allowed: Tuple[str, ...], value: Any, field: str) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise CaptureArtifactError("invalid_field", field, f"must be one of {', '.join(allowed)}")
    return value


def _list(value: Any, field: str) -> List[Any]:
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
        raise CaptureArtifactError("invalid_field", field, "must be an array")
    return list(value)


def _record(value: Any, field: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise CaptureArtifactError("invalid_field", field, "must be an object")
    return value


def _token(value: str) -> str:
    return f"{len(utf8(value))}:{value}"


def canonicalize_capture_artifact(session: Mapping[str, Any]) -> str:
    """The ``dpdpcca/2`` canonical string of ``session`` (a :class:`CaptureArtifactSession`); sign or
    verify its UTF-8 bytes. Raises :class:`CaptureArtifactError` when two grants share a
    ``purposeKey`` or a signed field is missing, ill-typed or outside its enumeration."""
    session = _record(session, "session")
    grants: List[Tuple[str, str]] = []
    for index, grant in enumerate(_list(session.get("purposeGrants"), "purposeGrants")):
        fields = _record(grant, f"purposeGrants[{index}]")
        grants.append(
            (
                _text(fields.get("purposeKey"), f"purposeGrants[{index}].purposeKey"),
                _one_of(_STATUSES, fields.get("status"), f"purposeGrants[{index}].status"),
            )
        )
    seen = set()
    for index, (key, _) in enumerate(grants):
        if key in seen:
            raise CaptureArtifactError(
                "duplicate_purpose_key",
                f"purposeGrants[{index}].purposeKey",
                f"purposeKey {key!r} appears more than once",
            )
        seen.add(key)
    # UTF-8 byte order, which is code point order: Python's own str order, not the audit hash's UTF-16.
    grants.sort(key=lambda grant: utf8(grant[0]))
    data_types = [
        _text(value, f"dataTypes[{index}]") for index, value in enumerate(_list(session.get("dataTypes"), "dataTypes"))
    ]
    data_types.sort(key=utf8)

    handle_kind, handle_value = "none", "null"
    if session.get("principalHandle") is not None:
        handle = _record(session["principalHandle"], "principalHandle")
        handle_kind = _one_of(_HANDLE_KINDS, handle.get("kind"), "principalHandle.kind")
        handle_value = _text(handle.get("value"), "principalHandle.value")

    values = [
        CAPTURE_ARTIFACT_FORMAT,
        _text(session.get("clientSessionId"), "clientSessionId"),
        _text(session.get("organizationId"), "organizationId"),
        _text(session.get("deviceId"), "deviceId"),
        _text(session.get("noticeId"), "noticeId"),
        _integer(session.get("noticeVersion"), "noticeVersion"),
        _text(session.get("noticeLocale"), "noticeLocale"),
        str(len(grants)),
        *[part for grant in grants for part in grant],
        str(len(data_types)),
        *data_types,
        handle_kind,
        handle_value,
        _integer(session.get("capturedAtClient"), "capturedAtClient"),
        _one_of(_CHANNELS, session.get("channel"), "channel"),
    ]
    return "|".join(_token(value) for value in values)


def _strict_base64(text: Any) -> Optional[bytes]:
    """The bytes of ``text`` if it is canonical padded standard base64 (its bytes' only encoding)."""
    if not isinstance(text, str) or not _STANDARD_BASE64.fullmatch(text):
        return None
    data = base64.b64decode(text)
    return data if base64.b64encode(data).decode("ascii") == text else None


def verify_capture_signature(public_key_spki_base64: str, canonical: str, signature_base64: str) -> bool:
    """ECDSA P-256 / SHA-256 check of ``canonical``'s UTF-8 bytes against a base64 raw ``r||s``
    signature, with the device's enrolled key (base64 SPKI DER). False, never an exception, for a
    malformed or non-P-256 key, a signature that is not canonical base64 of exactly 64 bytes (DER is
    refused) or a mismatch; high-S signatures verify (secure elements do not normalise S).

    Raises ImportError when the ``cryptography`` package is not installed (a setup problem, not a
    failed check): ``pip install "guard-sdk[capture]"``."""
    try:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
        from cryptography.hazmat.primitives.serialization import load_der_public_key
    except ImportError as error:  # pragma: no cover - exercised only without the extra
        raise ImportError(
            'verify_capture_signature needs the cryptography package: pip install "guard-sdk[capture]"'
        ) from error

    der = _strict_base64(public_key_spki_base64)
    signature = _strict_base64(signature_base64)
    if der is None or signature is None or len(signature) != _SIGNATURE_BYTES or not isinstance(canonical, str):
        return False
    try:
        key = load_der_public_key(der)
    except (ValueError, TypeError):
        return False
    # Only P-256: a secp256k1 key also makes 64-byte signatures and must not pass for a device key.
    if not isinstance(key, ec.EllipticCurvePublicKey) or not isinstance(key.curve, ec.SECP256R1):
        return False
    r = int.from_bytes(signature[:32], "big")
    s = int.from_bytes(signature[32:], "big")
    try:
        key.verify(encode_dss_signature(r, s), utf8(canonical), ec.ECDSA(hashes.SHA256()))
    except (InvalidSignature, ValueError):
        return False
    return True
