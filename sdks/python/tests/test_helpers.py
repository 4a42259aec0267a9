"""The pure helpers beyond the golden vectors: has_consent, and how the webhook verifiers treat the
shapes real frameworks hand them (header objects, bytes, configuration mistakes)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from typing import Any, Dict

import httpx
import pytest

import guard

SECRET = "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
BODY = '{"eventId":"evt_01HZX3K8Q2M4","eventType":"consent.given","payload":{"purpose":"विपणन"}}'


def sign_standard(webhook_id: str, timestamp: int, body: str, secret: str = SECRET) -> str:
    key = base64.b64decode(secret[len("whsec_") :])
    digest = hmac.new(key, f"{webhook_id}.{timestamp}.{body}".encode(), hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def headers_at(timestamp: int) -> Dict[str, str]:
    return {
        "webhook-id": "evt_01HZX3K8Q2M4",
        "webhook-timestamp": str(timestamp),
        "webhook-signature": sign_standard("evt_01HZX3K8Q2M4", timestamp, BODY),
    }


# ----- has_consent -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "consents,purpose,expected",
    [
        ([{"purpose": "Marketing", "withdrawnAt": None}], "Marketing", True),
        ([{"purpose": "Marketing"}], "Marketing", True),
        ([{"purpose": "Marketing", "withdrawnAt": 1700000001000}], "Marketing", False),
        ([{"purpose": "Marketing", "withdrawnAt": 0}], "Marketing", False),
        ([{"purpose": "Marketing"}], "marketing", False),
        ([{"purpose": "Marketing "}], "Marketing", False),
        ([], "Marketing", False),
        (
            [{"purpose": "Marketing", "withdrawnAt": 1}, {"purpose": "Marketing", "withdrawnAt": None}],
            "Marketing",
            True,
        ),
    ],
)
def test_has_consent(consents: Any, purpose: str, expected: bool) -> None:
    assert guard.has_consent(consents, purpose) is expected


def test_has_consent_reads_api_responses_as_they_come() -> None:
    status = {"consents": [{"consentId": "cns_1", "purpose": "Analytics", "status": "active", "withdrawnAt": None}]}
    assert guard.has_consent(status["consents"], "Analytics")
    assert guard.has_consent(iter(status["consents"]), "Analytics"), "any iterable of records"


# ----- X-DPDP-Signature ------------------------------------------------------------------------


def test_dpdp_signature_accepts_bytes_and_memoryview_bodies() -> None:
    header = hmac.new(SECRET.encode(), BODY.encode(), hashlib.sha256).hexdigest()
    assert guard.verify_webhook_signature(SECRET, BODY, header)
    assert guard.verify_webhook_signature(SECRET, BODY.encode(), header)
    assert guard.verify_webhook_signature(SECRET, memoryview(BODY.encode()), header)
    assert guard.verify_webhook_signature(SECRET, bytearray(BODY.encode()), header)


@pytest.mark.parametrize("header", [None, 42, ["a" * 64], b"a" * 64])
def test_dpdp_signature_header_that_is_not_one_string_is_false(header: Any) -> None:
    assert guard.verify_webhook_signature(SECRET, BODY, header) is False


@pytest.mark.parametrize("secret", ["", None, 42])
def test_dpdp_signature_without_a_secret_is_a_configuration_error(secret: Any) -> None:
    with pytest.raises(guard.GuardWebhookSecretError):
        guard.verify_webhook_signature(secret, BODY, "a" * 64)


def test_a_parsed_body_is_refused_with_an_explanation() -> None:
    with pytest.raises(TypeError, match="as received"):
        guard.verify_webhook_signature(SECRET, {"eventId": "evt"}, "a" * 64)  # type: ignore[arg-type]


# ----- Standard Webhooks -----------------------------------------------------------------------


def test_standard_webhook_default_clock_and_tolerance() -> None:
    now = int(time.time())
    assert guard.verify_standard_webhook(SECRET, BODY, headers_at(now)).valid
    assert guard.verify_standard_webhook(SECRET, BODY, headers_at(now - 3600)).reason == "timestamp_too_old"
    assert guard.verify_standard_webhook(SECRET, BODY, headers_at(now + 3600)).reason == "timestamp_too_new"
    assert guard.verify_standard_webhook(SECRET, BODY, headers_at(now - 3600), tolerance_seconds=7200).valid


def test_standard_webhook_headers_in_any_case_and_in_framework_header_objects() -> None:
    headers = headers_at(1_700_000_001)
    title_case = {name.title(): value for name, value in headers.items()}
    for given in (headers, title_case, httpx.Headers(title_case)):
        assert guard.verify_standard_webhook(SECRET, BODY, given, now_seconds=1_700_000_001).valid


def test_a_header_given_twice_is_not_a_single_value() -> None:
    headers: Dict[str, Any] = dict(headers_at(1_700_000_001))
    headers["Webhook-Id"] = headers["webhook-id"]
    assert guard.verify_standard_webhook(SECRET, BODY, headers, now_seconds=1_700_000_001).reason == "missing_header"
    listed = {**headers_at(1_700_000_001), "webhook-signature": [headers_at(1_700_000_001)["webhook-signature"]]}
    assert guard.verify_standard_webhook(SECRET, BODY, listed, now_seconds=1_700_000_001).reason == "missing_header"


def test_key_rotation_any_v1_entry_may_match() -> None:
    headers = headers_at(1_700_000_001)
    old = sign_standard("evt_01HZX3K8Q2M4", 1_700_000_001, BODY, "whsec_" + base64.b64encode(b"o" * 32).decode())
    headers["webhook-signature"] = f"{old} {headers['webhook-signature']}"
    assert guard.verify_standard_webhook(SECRET, BODY, headers, now_seconds=1_700_000_001).valid


def test_an_absurdly_long_timestamp_is_invalid_not_a_crash() -> None:
    headers = headers_at(1_700_000_001)
    headers["webhook-timestamp"] = "9" * 5000
    assert guard.verify_standard_webhook(SECRET, BODY, headers, now_seconds=1).reason == "invalid_timestamp"
    headers["webhook-timestamp"] = "0" * 5000 + "1700000001"
    result = guard.verify_standard_webhook(SECRET, BODY, headers, now_seconds=1_700_000_001)
    assert result.reason == "no_matching_signature", "leading zeros parse; the text as received is signed"


@pytest.mark.parametrize(
    "secret",
    [
        "not a secret",
        "whsec_",
        "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8",  # unpadded
        "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh9=",  # non-zero unused bits
        "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd-h8=",  # URL-safe alphabet
        None,
    ],
)
def test_a_malformed_standard_webhook_secret_is_a_configuration_error(secret: Any) -> None:
    with pytest.raises(guard.GuardWebhookSecretError):
        guard.verify_standard_webhook(secret, BODY, headers_at(1), now_seconds=1)


@pytest.mark.parametrize(
    "options",
    [
        {"tolerance_seconds": -1},
        {"tolerance_seconds": float("nan")},
        {"tolerance_seconds": "300"},
        {"now_seconds": float("inf")},
        {"now_seconds": True},
    ],
)
def test_a_bad_tolerance_or_clock_is_a_caller_error(options: Any) -> None:
    with pytest.raises(ValueError):
        guard.verify_standard_webhook(SECRET, BODY, headers_at(1_700_000_001), **options)


# ----- audit hash ------------------------------------------------------------------------------

EVENT = {
    "organizationId": "org_abc123",
    "noticeId": "notice_v1",
    "noticeVersion": 1,
    "purpose": "Marketing",
    "dataTypes": ["email", "phone"],
    "givenAt": 1700000001000,
    "source": "brokered",
}


def test_integral_floats_are_written_as_javascript_writes_them() -> None:
    assert guard.canonicalize_audit_event({**EVENT, "noticeVersion": 1.0}) == guard.canonicalize_audit_event(EVENT)
    assert guard.validate_audit_fields({**EVENT, "noticeVersion": 1.0}) == []


@pytest.mark.parametrize(
    "change,field",
    [
        ({"noticeVersion": True}, "noticeVersion"),
        ({"noticeVersion": "1"}, "noticeVersion"),
        ({"givenAt": 2**53}, "givenAt"),
        ({"dataTypes": "email"}, "dataTypes"),
        ({"dataTypes": ["email", 7]}, "dataTypes[1]"),
        ({"purpose": None}, "purpose"),
        ({"source": "offline_ivr"}, "source"),
    ],
)
def test_validate_audit_fields_names_the_field(change: Dict[str, Any], field: str) -> None:
    assert [problem["field"] for problem in guard.validate_audit_fields({**EVENT, **change})] == [field]


def test_a_surrogate_pair_written_as_two_code_points_hashes_as_the_character() -> None:
    joined = {**EVENT, "purpose": "Emoji \U0001f600"}
    split = {**EVENT, "purpose": "Emoji \ud83d\ude00"}
    assert guard.validate_audit_fields(split) == []
    assert guard.compute_audit_hash("s", split) == guard.compute_audit_hash("s", joined)
