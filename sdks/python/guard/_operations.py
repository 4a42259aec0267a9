"""The SDK's method set as data: one row per HTTP operation (conformance/README.md, "The method set").

``tests/test_contract_sync.py`` checks every row against ``contract/openapi/v1.yaml`` (method, path,
credential, which routes take an ``Idempotency-Key``), so the table cannot drift from the contract.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict

__all__ = ["Operation", "OPERATIONS"]

NONE = "none"
API_KEY = "apiKey"
ACCESS_TOKEN = "accessToken"


@dataclass(frozen=True)
class Operation:
    method_name: str
    """The family's (Node) method name; Python's is its snake_case form."""
    operation_id: str
    """The contract's operationId."""
    http_method: str
    path: str
    """Path template; ``{name}`` segments are percent-encoded on substitution."""
    credential: str
    """``none``, ``apiKey`` or ``accessToken``."""
    creates: bool = False
    """A create call: takes an Idempotency-Key, minted once per logical call when none is given."""
    idempotent_by_contract: bool = False
    """A write the contract declares idempotent by its natural key, so it is safe to repeat."""


def _table(*operations: Operation) -> Dict[str, Operation]:
    return {operation.method_name: operation for operation in operations}


OPERATIONS: Dict[str, Operation] = _table(
    Operation("getOrganization", "getOrgBySlug", "GET", "/api/v1/org/{slug}", NONE),
    Operation("getNotices", "getNoticesForOrg", "GET", "/api/v1/org/{orgId}/notices", NONE),
    Operation("getNotice", "getNoticeById", "GET", "/api/v1/notices/{noticeId}", NONE),
    Operation("getBannerConfig", "getBannerConfig", "GET", "/api/v1/org/{orgId}/banner-config", NONE),
    Operation("giveAnonymousConsent", "giveConsentAnonymous", "POST", "/api/v1/consents/anonymous", NONE, creates=True),
    # No Idempotency-Key: the response carries a secret, and replaying it would mean storing it.
    Operation("brokerToken", "brokerToken", "POST", "/api/v1/auth/broker-token", API_KEY),
    Operation(
        "linkAnonymousConsent",
        "linkAnonymousConsent",
        "POST",
        "/api/v1/link-anonymous-consent",
        ACCESS_TOKEN,
        idempotent_by_contract=True,
    ),
    Operation("listDsrRequests", "listDsrRequestsForCurrentUser", "GET", "/api/v1/dsr", ACCESS_TOKEN),
    Operation("createDsrRequest", "createDsrRequest", "POST", "/api/v1/dsr", ACCESS_TOKEN, creates=True),
    Operation("listGrievances", "listGrievancesForCurrentUser", "GET", "/api/v1/grievances", ACCESS_TOKEN),
    Operation("createGrievance", "createGrievance", "POST", "/api/v1/grievances", ACCESS_TOKEN, creates=True),
    Operation("getNomination", "getNomination", "GET", "/api/v1/nomination", ACCESS_TOKEN),
    Operation(
        "upsertNomination",
        "upsertNomination",
        "PUT",
        "/api/v1/nomination",
        ACCESS_TOKEN,
        idempotent_by_contract=True,
    ),
    Operation(
        "revokeNomination",
        "revokeNomination",
        "DELETE",
        "/api/v1/nomination",
        ACCESS_TOKEN,
        idempotent_by_contract=True,
    ),
    Operation("recordConsent", "recordConsent", "POST", "/cm/v1/consent", API_KEY, creates=True),
    Operation("getConsent", "getConsent", "GET", "/cm/v1/consent/{consentId}", API_KEY),
    # Not safe to repeat: after a lost response the repeat would answer 409 CONFLICT.
    Operation("withdrawConsent", "withdrawConsent", "DELETE", "/cm/v1/consent/{consentId}", API_KEY),
    Operation("getConsentStatus", "getConsentStatus", "GET", "/api/v1/consent-status", API_KEY),
    # Read-only: a repeat logs one more decision, which is what happened.
    Operation(
        "verifyConsent",
        "verifyConsentGate",
        "POST",
        "/api/v1/consent/verify",
        API_KEY,
        idempotent_by_contract=True,
    ),
    Operation("listGateDecisions", "listConsentGateDecisions", "GET", "/api/v1/consent/gate/decisions", API_KEY),
    Operation("listGateAlerts", "listConsentGateBypassAlerts", "GET", "/api/v1/consent/gate/alerts", API_KEY),
)
