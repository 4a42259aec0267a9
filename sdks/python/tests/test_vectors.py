"""Every golden vector in contract/vectors/ (audit hash, webhook signatures) through guard-sdk.

The vector files are the contract: no case is skipped, and the case count in each file's header must
match, so a truncated file cannot pass. Intermediate values (canonical string, UTF-8 bytes, signed
content, expected signature) are checked as well as the verdict, so a failure names the step.
"""

from __future__ import annotations

from typing import Any, Dict

import pytest
from conftest import CONTRACT, load_json

import guard
from guard._text import utf8
from guard._webhooks import _dpdp_digest, _standard_signature, _standard_signed_content, _standard_webhook_key

AUDIT = load_json(CONTRACT / "vectors" / "audit-hash.json")
WEBHOOKS = load_json(CONTRACT / "vectors" / "webhook-signature.json")


def test_vector_headers_count_their_cases() -> None:
    for vectors in (AUDIT, WEBHOOKS):
        assert vectors["schemaVersion"] == 1
        assert vectors["numberOfCases"] == len(vectors["cases"])
        ids = [case["id"] for case in vectors["cases"]]
        assert len(ids) == len(set(ids)), "case ids must be unique"


# ----- audit hash ------------------------------------------------------------------------------


@pytest.mark.parametrize("case", AUDIT["cases"], ids=lambda case: case["id"])
def test_audit_hash_vector(case: Dict[str, Any]) -> None:
    event = case["input"]
    canonical = guard.canonicalize_audit_event(event)
    assert canonical == case["canonical"]
    problems = guard.validate_audit_fields(event)
    if case["result"] == "valid":
        assert problems == []
        assert utf8(canonical).hex() == case["canonicalUtf8Hex"]
        secret = case.get("secret", AUDIT["testSecret"])
        assert guard.compute_audit_hash(secret, event) == case["expected"]
    else:
        assert case["result"] == "invalid"
        assert [problem["field"] for problem in problems] == case["invalidFields"]
        assert all(problem["reason"] for problem in problems)


def test_audit_hash_does_not_reorder_the_callers_list() -> None:
    data_types = ["phone", "email"]
    event = {
        "organizationId": "org_abc123",
        "noticeId": "notice_v1",
        "noticeVersion": 1,
        "purpose": "Marketing",
        "dataTypes": data_types,
        "givenAt": 1700000001000,
    }
    assert guard.canonicalize_audit_event(event).endswith("|email,phone|1700000001000|null")
    assert data_types == ["phone", "email"]


def test_utf16_order_case_really_differs_from_python_sorted() -> None:
    """The vector that pins UTF-16 order must be one where Python's default sort gives another
    answer; otherwise it would not prove the explicit sort key is used."""
    case = next(c for c in AUDIT["cases"] if c["id"] == "data-types-utf16-order")
    naive = ",".join(sorted(case["input"]["dataTypes"]))
    assert naive not in case["canonical"]


# ----- webhooks --------------------------------------------------------------------------------

DPDP = [case for case in WEBHOOKS["cases"] if case["scheme"] == "x-dpdp-signature"]
STANDARD = [case for case in WEBHOOKS["cases"] if case["scheme"] == "standard-webhooks"]


def test_every_webhook_case_has_a_known_scheme() -> None:
    assert len(DPDP) + len(STANDARD) == len(WEBHOOKS["cases"])


def _secret(case: Dict[str, Any]) -> str:
    return case["input"].get("secret", case.get("secret", WEBHOOKS["testSecret"]))


@pytest.mark.parametrize("case", DPDP, ids=lambda case: case["id"])
def test_dpdp_signature_vector(case: Dict[str, Any]) -> None:
    secret = _secret(case)
    body = case["input"]["body"]
    verdict = guard.verify_webhook_signature(secret, body, case["input"]["header"])
    assert verdict is (case["result"] == "valid")
    # The same bytes, given as bytes, verify the same way.
    assert guard.verify_webhook_signature(secret, body.encode("utf-8"), case["input"]["header"]) is verdict
    if "expectedSignature" in case:
        assert _dpdp_digest(secret, utf8(body)).hex() == case["expectedSignature"]


@pytest.mark.parametrize("case", STANDARD, ids=lambda case: case["id"])
def test_standard_webhook_vector(case: Dict[str, Any]) -> None:
    given = case["input"]
    secret = _secret(case)
    options: Dict[str, Any] = {"now_seconds": given["nowSeconds"]}
    if "toleranceSeconds" in given:
        options["tolerance_seconds"] = given["toleranceSeconds"]
    result = guard.verify_standard_webhook(secret, given["body"], given["headers"], **options)
    if case["result"] == "valid":
        assert result == guard.StandardWebhookVerification(True)
        assert result
    else:
        assert result == guard.StandardWebhookVerification(False, case["reason"])
        assert not result
    headers = given["headers"]
    if "signedContent" in case:
        signed = _standard_signed_content(headers["webhook-id"], headers["webhook-timestamp"], utf8(given["body"]))
        assert signed == utf8(case["signedContent"])
    if "expectedSignature" in case:
        # Signing takes the timestamp as an integer, so its text is the plain decimal form.
        signed = _standard_signed_content(
            headers["webhook-id"], str(int(headers["webhook-timestamp"])), utf8(given["body"])
        )
        assert "v1," + _standard_signature(_standard_webhook_key(secret), signed) == case["expectedSignature"]
