"""The SDK's operations as data: the one definition of every client method (conformance/README.md,
"The method set").

Each row says how a method is called (its arguments, their types, which are positional), where each
argument goes on the wire (path, query or JSON body, under its contract name), which credential the
route takes, whether it is a create call or a write the contract makes idempotent, and the method's
docstring. The response type is not repeated here: it is the contract's, generated into
``guard/_models.py`` as ``RESPONSE_TYPES``.

Both clients are built from this table. ``scripts/generate_clients.py`` writes the explicit method
of ``GuardClient`` and of ``AsyncGuardClient`` for each row (real methods, so type checkers and IDEs
see every signature), and at run time ``ClientCore._prepare`` reads the same row to place the
arguments. Adding an operation is one row here, then running the generator;
``tests/test_generated_code.py`` fails while the clients are stale, and
``tests/test_contract_sync.py`` checks every row against ``contract/openapi/v1.yaml`` (method, path,
credential, which routes take an ``Idempotency-Key``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Tuple

__all__ = ["Operation", "OPERATIONS", "Param"]

NONE = "none"
API_KEY = "apiKey"
ACCESS_TOKEN = "accessToken"

PATH = "path"
QUERY = "query"
BODY = "body"

STRING_LIST = "Sequence[str]"
"""The annotation of a list-of-strings argument. Any sequence is accepted and sent as a JSON array,
but a bare string is refused rather than split into its letters."""

SESSION_LIST = "Sequence[OfflineCaptureSession]"
"""The annotation of ``sync_offline_captures``' sessions: the devices' signed sessions as dicts with
the wire's (camelCase) keys, passed through unchanged because the signature covers them. Any
sequence is accepted and sent as a JSON array; a bare string or a single dict is refused."""


def _snake(name: str) -> str:
    return "".join("_" + char.lower() if char.isupper() else char for char in name)


@dataclass(frozen=True)
class Param:
    """One argument of a client method. Its Python name is the snake_case form of ``wire``, the
    contract's name, as the conformance adapter expands an input object."""

    wire: str
    """The name on the wire: a path template segment, a query parameter or a JSON body field."""
    where: str
    """``path``, ``query`` or ``body``."""
    annotation: str = "str"
    """The Python type as written in the signature (without ``Optional`` for an optional one)."""
    positional: bool = False
    """Positional-or-keyword (a method's single id); otherwise keyword-only."""
    optional: bool = False
    """Defaults to ``None``; a ``None`` is then left out of the request, never sent as null."""

    @property
    def name(self) -> str:
        return _snake(self.wire)


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
    params: Tuple[Param, ...] = ()
    """The method's arguments in signature order, which is also the order of the JSON body's fields."""
    doc: str = ""
    """The method's docstring."""
    stores_token: bool = False
    """The answer's ``accessToken`` becomes the client's access token for principal calls."""
    pages: str = ""
    """For a paged list: the answer's array field. The method takes ``limit`` and ``cursor`` and
    returns ``nextCursor``; the generator adds an ``iter_*`` method that walks every page and yields
    the items (``iterator_name``)."""
    item_type: str = ""
    """For a paged list: the type of one item of ``pages``, as ``guard/_models.py`` names it."""

    @property
    def iterator_name(self) -> str:
        """``listDsrRequests`` -> ``iter_dsr_requests``, ``getNotices`` -> ``iter_notices``: the Node
        SDK's ``iterateDsrRequests`` / ``iterateNotices`` in snake_case."""
        stem = self.method_name
        for verb in ("list", "get"):
            if stem.startswith(verb):
                stem = stem[len(verb) :]
                break
        return "iter" + _snake(stem)

    @property
    def python_name(self) -> str:
        return _snake(self.method_name)


PAGE_PARAMS = (Param("limit", QUERY, "int", optional=True), Param("cursor", QUERY, optional=True))
"""A paged list's arguments: the page size (server default 100, at most 500; the gate's decision log
50 and 200) and the ``nextCursor`` of the previous page."""


def _table(*operations: Operation) -> Dict[str, Operation]:
    return {operation.method_name: operation for operation in operations}


OPERATIONS: Dict[str, Operation] = _table(
    Operation(
        "getOrganization",
        "getOrgBySlug",
        "GET",
        "/api/v1/org/{slug}",
        NONE,
        params=(Param("slug", PATH, positional=True),),
        doc="An organisation by its short name (slug).",
    ),
    Operation(
        "getNotices",
        "getNoticesForOrg",
        "GET",
        "/api/v1/org/{orgId}/notices",
        NONE,
        params=(Param("orgId", PATH, positional=True), *PAGE_PARAMS),
        doc="The organisation's published notices, under ``notices``, a page at a time (``nextCursor``).",
        pages="notices",
        item_type="Notice",
    ),
    Operation(
        "getNotice",
        "getNoticeById",
        "GET",
        "/api/v1/notices/{noticeId}",
        NONE,
        params=(Param("noticeId", PATH, positional=True),),
        doc="One published notice.",
    ),
    Operation(
        "getBannerConfig",
        "getBannerConfig",
        "GET",
        "/api/v1/org/{orgId}/banner-config",
        NONE,
        params=(
            Param("orgId", PATH, positional=True),
            Param("domain", QUERY, optional=True),
            Param("appId", QUERY, optional=True),
        ),
        doc=(
            "Banner configuration for a web ``domain``, a native ``app_id``, or (neither) the\n"
            "organisation default. When both are given the server uses ``domain``."
        ),
    ),
    Operation(
        "giveAnonymousConsent",
        "giveConsentAnonymous",
        "POST",
        "/api/v1/consents/anonymous",
        NONE,
        creates=True,
        params=(
            Param("organizationId", BODY),
            Param("noticeId", BODY),
            Param("purpose", BODY),
            Param("dataTypes", BODY, STRING_LIST),
            Param("anonymousId", BODY),
        ),
        doc=(
            "Record a guest's consent under a client-generated ``anonymous_id``; link it after sign-in\n"
            "with :meth:`link_anonymous_consent`. A create call: see ``idempotency_key``."
        ),
    ),
    # Idempotent by contract: a repeat lists the token's consents under alreadyWithdrawn and answers 200.
    Operation(
        "withdrawConsentByToken",
        "withdrawConsentByToken",
        "POST",
        "/api/v1/offline/withdrawals",
        NONE,
        idempotent_by_contract=True,
        params=(Param("withdrawalToken", BODY, positional=True),),
        doc=(
            "Withdraw every consent an offline withdrawal token stands for (printed on a slip or read out\n"
            "after an offline, QR, POS or IVR consent; DPDP s.6(4)). No credential: the token is the\n"
            "proof. Idempotent: a repeat lists them under ``alreadyWithdrawn``."
        ),
    ),
    # No Idempotency-Key: the response carries a secret, and replaying it would mean storing it.
    Operation(
        "brokerToken",
        "brokerToken",
        "POST",
        "/api/v1/auth/broker-token",
        API_KEY,
        params=(Param("externalId", BODY, positional=True), Param("email", BODY, optional=True)),
        doc=(
            "Mint a short-lived principal access token for your user ``external_id`` and keep it for\n"
            "this client's principal calls. Hand ``accessToken`` to your app; broker again when it expires.\n"
            "Never retried: it takes no idempotency key, and the token is a secret.\n"
            "\n"
            "``email`` (contract 2.10.0) stores the user's email address, by which ``record_consent`` and\n"
            "``get_consent_status`` find them; omitted, the stored address is left as it is."
        ),
        stores_token=True,
    ),
    Operation(
        "linkAnonymousConsent",
        "linkAnonymousConsent",
        "POST",
        "/api/v1/link-anonymous-consent",
        ACCESS_TOKEN,
        idempotent_by_contract=True,
        params=(Param("anonymousId", BODY, positional=True),),
        doc="Move a guest's anonymous consents to the signed-in principal. Idempotent.",
    ),
    Operation(
        "listDsrRequests",
        "listDsrRequestsForCurrentUser",
        "GET",
        "/api/v1/dsr",
        ACCESS_TOKEN,
        params=PAGE_PARAMS,
        doc="The principal's own data-subject requests, newest first, under ``requests``, a page at a time.",
        pages="requests",
        item_type="DsrRequest",
    ),
    Operation(
        "createDsrRequest",
        "createDsrRequest",
        "POST",
        "/api/v1/dsr",
        ACCESS_TOKEN,
        creates=True,
        params=(
            Param("organizationId", BODY),
            Param("type", BODY),
            Param("details", BODY, optional=True),
        ),
        doc=(
            "File a data-subject request (``type``: summary, processors, correction or erasure).\n"
            "\n"
            "Passing an ``idempotency_key`` used before returns the original request and creates\n"
            "nothing; without one the SDK mints a key for this call and reuses it on every retry."
        ),
    ),
    Operation(
        "listGrievances",
        "listGrievancesForCurrentUser",
        "GET",
        "/api/v1/grievances",
        ACCESS_TOKEN,
        params=PAGE_PARAMS,
        doc="The principal's own grievances, newest first, under ``grievances``, a page at a time.",
        pages="grievances",
        item_type="Grievance",
    ),
    Operation(
        "createGrievance",
        "createGrievance",
        "POST",
        "/api/v1/grievances",
        ACCESS_TOKEN,
        creates=True,
        params=(
            Param("organizationId", BODY),
            Param("subject", BODY),
            Param("description", BODY),
        ),
        doc="File a grievance. A create call: see ``idempotency_key`` on :meth:`create_dsr_request`.",
    ),
    Operation(
        "getNomination",
        "getNomination",
        "GET",
        "/api/v1/nomination",
        ACCESS_TOKEN,
        doc="The principal's active nomination, or ``None``.",
    ),
    Operation(
        "upsertNomination",
        "upsertNomination",
        "PUT",
        "/api/v1/nomination",
        ACCESS_TOKEN,
        idempotent_by_contract=True,
        params=(Param("nomineeName", BODY), Param("nomineeContact", BODY)),
        doc="Set or replace the principal's nomination (the same record is updated, never a second one).",
    ),
    Operation(
        "revokeNomination",
        "revokeNomination",
        "DELETE",
        "/api/v1/nomination",
        ACCESS_TOKEN,
        idempotent_by_contract=True,
        doc="Revoke the principal's nomination; ``revoked`` is false when none was active.",
    ),
    Operation(
        "recordConsent",
        "recordConsent",
        "POST",
        "/cm/v1/consent",
        API_KEY,
        creates=True,
        params=(
            Param("email", BODY),
            Param("noticeId", BODY),
            Param("purpose", BODY),
            Param("dataTypes", BODY, STRING_LIST),
        ),
        doc="Record consent for a known principal, found by ``email`` (``POST /cm/v1/consent``).",
    ),
    Operation(
        "getConsent",
        "getConsent",
        "GET",
        "/cm/v1/consent/{consentId}",
        API_KEY,
        params=(Param("consentId", PATH, positional=True),),
        doc="One consent record.",
    ),
    # Not safe to repeat: after a lost response the repeat would answer 409 CONFLICT.
    Operation(
        "withdrawConsent",
        "withdrawConsent",
        "DELETE",
        "/cm/v1/consent/{consentId}",
        API_KEY,
        params=(Param("consentId", PATH, positional=True),),
        doc="Withdraw a consent. Withdrawing a withdrawn one is ``409 CONFLICT``, so this is never retried.",
    ),
    Operation(
        "getConsentStatus",
        "getConsentStatus",
        "GET",
        "/api/v1/consent-status",
        API_KEY,
        params=(Param("email", QUERY, optional=True), Param("externalId", QUERY, optional=True)),
        doc=(
            "Every consent of one principal, found by ``email`` or ``external_id`` (exactly one: the\n"
            "server answers ``400 VALIDATION_ERROR`` to neither or both)."
        ),
    ),
    # Read-only: a repeat logs one more decision, which is what happened.
    Operation(
        "verifyConsent",
        "verifyConsentGate",
        "POST",
        "/api/v1/consent/verify",
        API_KEY,
        idempotent_by_contract=True,
        params=(Param("consentId", BODY, positional=True),),
        doc="Consent Gate: ask before processing that depends on a consent; ``deny`` means stop.",
    ),
    Operation(
        "listGateDecisions",
        "listConsentGateDecisions",
        "GET",
        "/api/v1/consent/gate/decisions",
        API_KEY,
        params=PAGE_PARAMS,
        doc="The gate's decision log, newest first (server default 50, at most 200), a page at a time.",
        pages="decisions",
        item_type="ConsentGateDecision",
    ),
    Operation(
        "listGateAlerts",
        "listConsentGateBypassAlerts",
        "GET",
        "/api/v1/consent/gate/alerts",
        API_KEY,
        params=PAGE_PARAMS,
        doc=(
            "Consents denied repeatedly inside the rolling window (processing that ignores the gate),\n"
            "most recently denied first, a page at a time."
        ),
        pages="alerts",
        item_type="ConsentGateBypassAlert",
    ),
    # ----- registers (contract 2.15.0, tag ``registers``) -----
    Operation(
        "listDueRetentions",
        "listDueRetentions",
        "GET",
        "/api/v1/retention/due",
        API_KEY,
        params=PAGE_PARAMS,
        doc=(
            "Scheduled erasures whose retention window has elapsed (DPDP s.8(7), r.8), under ``due``, a\n"
            "page at a time: the principal was told at least 48 hours before; your backend now erases."
        ),
        pages="due",
        item_type="DueRetention",
    ),
    Operation(
        "listBreaches",
        "listBreaches",
        "GET",
        "/api/v1/breaches",
        API_KEY,
        params=PAGE_PARAMS,
        doc="The breach register (s.8(6)), drills excluded, under ``breaches``, a page at a time.",
        pages="breaches",
        item_type="Breach",
    ),
    Operation(
        "listCrossBorderTransfers",
        "listCrossBorderTransfers",
        "GET",
        "/api/v1/cross-border/transfers",
        API_KEY,
        params=PAGE_PARAMS,
        doc=(
            "Active processing activities declared as crossing borders (s.16), archived ones excluded,\n"
            "under ``transfers``, a page at a time."
        ),
        pages="transfers",
        item_type="CrossBorderTransfer",
    ),
    # Idempotent by contract: a repeat answers the first confirmation.
    Operation(
        "confirmErasureExecuted",
        "confirmRetentionErasureExecuted",
        "POST",
        "/api/v1/retention/erasures/{scheduledErasureId}/executed",
        API_KEY,
        idempotent_by_contract=True,
        params=(
            Param("scheduledErasureId", PATH, positional=True),
            Param("executedAt", BODY, "int", optional=True),
        ),
        doc=(
            "Confirm that your backend erased the data of a due retention (from\n"
            ":meth:`list_due_retentions`): recorded on the audit chain and raised as the\n"
            "``retention.erasure_executed`` webhook event. ``executed_at`` (epoch ms) defaults to the\n"
            "server's now. Safe to repeat: a repeat answers the first confirmation. A cancelled, held or\n"
            "not-yet-due erasure is ``409 CONFLICT``; an unknown id ``404``."
        ),
    ),
    # ----- offline and assisted capture (contract 2.14.0, tag ``offline``) -----
    Operation(
        "createOfflineConsentLink",
        "createOfflineConsentLink",
        "POST",
        "/api/v1/offline-consent/links",
        API_KEY,
        creates=True,
        params=(
            Param("noticeId", BODY),
            Param("purpose", BODY),
            Param("dataTypes", BODY, STRING_LIST),
            Param("label", BODY, optional=True),
        ),
        doc=(
            "Mint a QR consent link for a published notice; render ``/offline-consent/{token}`` on\n"
            "Guard's origin as a QR code. ``label`` (where the code is deployed) is shown to staff only.\n"
            "A create call: see ``idempotency_key`` on :meth:`create_dsr_request`."
        ),
    ),
    # No Idempotency-Key in the contract: each session's clientSessionId makes a re-sync return its
    # first result and write nothing, so the whole batch is safe to repeat.
    Operation(
        "syncOfflineCaptures",
        "syncOfflineCaptures",
        "POST",
        "/api/v1/offline/captures",
        API_KEY,
        idempotent_by_contract=True,
        params=(Param("sessions", BODY, SESSION_LIST, positional=True),),
        doc=(
            "Forward 1-200 capture sessions exactly as the enrolled devices built and signed them (for a\n"
            "server fronting a fleet). Partial success is normal: read each result's ``status``\n"
            "(``verified``, ``quarantined`` or ``rejected``, with a ``reason``). Safe to repeat."
        ),
    ),
    Operation(
        "createPosConsentRequest",
        "createPosConsentRequest",
        "POST",
        "/api/v1/offline/pos",
        API_KEY,
        creates=True,
        params=(
            Param("noticeId", BODY),
            Param("purpose", BODY),
            Param("dataTypes", BODY, STRING_LIST),
            Param("phone", BODY),
        ),
        doc=(
            "Start a point-of-sale consent request for a phone number keyed in at a till. The answer is\n"
            "not a consent: none exists until the customer confirms at ``/consent/{token}``. A create call."
        ),
    ),
    Operation(
        "recordIvrConsentArtifact",
        "recordIvrConsentArtifact",
        "POST",
        "/api/v1/offline/ivr",
        API_KEY,
        creates=True,
        params=(
            Param("noticeId", BODY),
            Param("partnerCallId", BODY),
            Param("audioRecordingUri", BODY),
            Param("transcript", BODY, optional=True),
            Param("locale", BODY),
            Param("dtmfSequence", BODY),
            Param("callerNumberHash", BODY),
            Param("capturedAt", BODY, "int"),
            Param("partnerSignature", BODY),
            Param("purpose", BODY),
            Param("dataTypes", BODY, STRING_LIST),
        ),
        doc=(
            "Store an IVR consent artefact from a telephony partner: a ``dtmf_sequence`` starting with\n"
            "``1`` records a consent, anything else a refusal kept as evidence. A create call;\n"
            "``partner_call_id`` also makes a resubmission return the original artefact."
        ),
    ),
)
