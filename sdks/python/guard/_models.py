"""Response types of guard-sdk, generated from contract/openapi/v1.yaml. Do not edit.

Regenerate with ``python scripts/generate_models.py``; a test fails while this file is stale
(tests/test_contract_sync.py). Every type is a TypedDict: a response is the JSON body as a plain
``dict`` with the wire's field names, so fields a newer server adds are kept, never dropped.
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, Tuple, TypedDict

CONTRACT_VERSION = "1.14.0"
OPENAPI_DESCRIPTION_VERSION = "2.17.0"

# Every code /api/v1 can return, in catalog order (ApiError.code x-guard-codes). GuardApiError.code
# may also hold a code a newer server added: compare with these, never assume the set is closed.
API_ERROR_CODES: Tuple[str, ...] = (
    "VALIDATION_ERROR",
    "NOTICE_NOT_PUBLISHED",
    "ALREADY_CONSENTED",
    "NOT_ASSOCIATED_WITH_ORG",
    "INVALID_STATUS_TRANSITION",
    "UNAUTHORIZED",
    "MINOR_TRACKING_BLOCKED",
    "NOT_FOUND",
    "SDK_VERSION_UNSUPPORTED",
    "RATE_LIMITED",
    "FORBIDDEN",
    "CONFLICT",
    "PAYLOAD_TOO_LARGE",
    "UNSUPPORTED_MEDIA_TYPE",
    "INTERNAL_ERROR",
    "UNAVAILABLE",
)
ApiErrorCode = Literal[
    "VALIDATION_ERROR",
    "NOTICE_NOT_PUBLISHED",
    "ALREADY_CONSENTED",
    "NOT_ASSOCIATED_WITH_ORG",
    "INVALID_STATUS_TRANSITION",
    "UNAUTHORIZED",
    "MINOR_TRACKING_BLOCKED",
    "NOT_FOUND",
    "SDK_VERSION_UNSUPPORTED",
    "RATE_LIMITED",
    "FORBIDDEN",
    "CONFLICT",
    "PAYLOAD_TOO_LARGE",
    "UNSUPPORTED_MEDIA_TYPE",
    "INTERNAL_ERROR",
    "UNAVAILABLE",
]


class OrgSummary(TypedDict):
    # Id of the organisation.
    orgId: str
    name: str
    slug: str


class _NoticeItemizedPurposeRequired(TypedDict):
    purpose: str
    personalDataDescription: str


class NoticeItemizedPurpose(_NoticeItemizedPurposeRequired, total=False):
    """One purpose the notice itemises, with the personal data it uses."""

    # Present when the notice declares whether the purpose is tracking, behavioural monitoring or
    # targeted advertising (DPDP s.9(3)). Added in 2.10.0.
    tracking: bool
    # Present when the notice names the personal-data types consent to this purpose covers (what a
    # consent record's `dataTypes` should be). Added in 2.12.0.
    dataTypes: List[str]


class _NoticeLanguageContentRequired(TypedDict):
    title: str
    body: str


class NoticeLanguageContent(_NoticeLanguageContentRequired, total=False):
    """The notice text in one language."""

    # How to withdraw consent (s.6(4)).
    withdrawal: str
    # The principal's rights and how to exercise them.
    rights: str
    # How to complain to the Data Protection Board.
    complaint: str


class _NoticeRequired(TypedDict):
    # Id of the notice.
    _id: str
    organizationId: str
    # The notice version; a new version asks for re-consent. Distinct from the banner `configVersion`.
    version: int
    itemized: List[NoticeItemizedPurpose]
    # Map of language code (for example `en`, `hi`) to `{ title, body }`; one entry per language the
    # notice is published in (s.5(3)).
    content: Dict[str, NoticeLanguageContent]
    # `superseded` and `archived` were added in 2.10.0. Public listings return `published` notices
    # only.
    status: Literal["draft", "published", "superseded", "archived"]


class Notice(_NoticeRequired, total=False):
    # Same value as `_id`, under the name the rest of the API uses. Added in 2.10.0.
    noticeId: str
    # The organisation's name for the notice (its versions share it); `default` is the organisation's
    # default notice. Added in 2.12.0.
    key: str
    # Epoch ms the notice was published, or null if it never was. Added in 2.10.0.
    publishedAt: Optional[int]
    # Language codes of `content`, in the organisation's preferred order. Added in 2.10.0.
    languages: List[str]


class NoticeList(TypedDict):
    # Published notices only.
    notices: List[Notice]
    # Pass it back as `cursor` to read the next page of the same list (same filters); `null` on
    # the last page. Opaque: its form may change in any release.
    nextCursor: Optional[str]


class _BannerConfigRequired(TypedDict):
    # Presentation-config version; never triggers re-consent.
    configVersion: int


class BannerConfig(_BannerConfigRequired, total=False):
    # Presentation settings of the consent banner (colours, position, texts). Open object; its keys
    # are the dashboard's.
    bannerSettings: Dict[str, Any]


class AnonymousConsent(TypedDict):
    consentId: str
    purpose: str
    dataTypes: List[str]
    # Epoch ms.
    givenAt: int


class WithdrawalByTokenResultWithdrawnItem(TypedDict):
    consentId: str
    purpose: str
    noticeId: str
    # Epoch ms.
    withdrawnAt: int


class WithdrawalByTokenResult(TypedDict):
    # The consents this request withdrew.
    withdrawn: List[WithdrawalByTokenResultWithdrawnItem]
    # The ids of the token's consents that were already withdrawn.
    alreadyWithdrawn: List[str]


class BrokeredToken(TypedDict):
    accessToken: str
    # Epoch ms the token expires.
    expiresAt: int
    tokenType: Literal["Bearer"]


class AnonymousConsentLinkNeedsReconsentItem(TypedDict):
    noticeId: str
    purpose: str


class AnonymousConsentLink(TypedDict):
    # Consents newly linked by this call.
    linkedCount: int
    needsReconsent: List[AnonymousConsentLinkNeedsReconsentItem]


class _DsrRequestRequired(TypedDict):
    requestId: str
    type: Literal["summary", "processors", "correction", "erasure"]
    # Forward only - pending -> in_progress -> completed | rejected.
    status: Literal["pending", "in_progress", "completed", "rejected"]


class DsrRequest(_DsrRequestRequired, total=False):
    # SLA deadline, Unix epoch milliseconds.
    dueAt: int
    # The `details` the principal filed.
    requestDetails: str
    # Added in 2.10.0.
    organizationId: str
    # Epoch ms the request was filed. Added in 2.10.0.
    createdAt: int
    # The fiduciary's id of the principal who filed it (a pseudonym once the principal's data is
    # erased). Added in 2.10.0.
    externalId: str
    # The answer to the principal, once given: the generated summary (`summary` requests), the
    # erasure report (`{erasure, message?}` on a completed erasure request), a statutory denial
    # (`{statutoryDenial: {statute, citation, retentionPolicyId?, deniedAt}}`), or what staff
    # recorded with the status change. Added in 2.10.0.
    responsePayload: Any
    # Epoch ms the request reached `completed` or `rejected`. Added in 2.10.0.
    closedAt: int
    # Where the statutory clock stands, computed when the record is read. Open items:
    # `on_time`, `due_soon` (at least 80 % of the response period has elapsed) or `overdue` (past
    # `dueAt`). Closed items: `met` (closed by `dueAt`) or `missed`. Added in 2.10.0.
    dueState: Literal["on_time", "due_soon", "overdue", "met", "missed"]


class DsrRequestList(TypedDict):
    requests: List[DsrRequest]
    # Pass it back as `cursor` to read the next page of the same list (same filters); `null` on
    # the last page. Opaque: its form may change in any release.
    nextCursor: Optional[str]


class _GrievanceRequired(TypedDict):
    grievanceId: str
    subject: str
    description: str
    # Forward only - open -> in_progress -> resolved.
    status: Literal["open", "in_progress", "resolved"]
    # SLA deadline, Unix epoch milliseconds.
    dueAt: int


class Grievance(_GrievanceRequired, total=False):
    # Epoch ms of the staff response.
    respondedAt: int
    response: str
    # Added in 2.10.0.
    organizationId: str
    # Epoch ms the grievance was filed. Added in 2.10.0.
    createdAt: int
    # The fiduciary's id of the principal who filed it (a pseudonym once the principal's data is
    # erased). Added in 2.10.0.
    externalId: str
    # Epoch ms the grievance was resolved. Added in 2.10.0.
    closedAt: int
    # Where the statutory clock stands, computed when the record is read. Open items:
    # `on_time`, `due_soon` (at least 80 % of the response period has elapsed) or `overdue` (past
    # `dueAt`). Closed items: `met` (closed by `dueAt`) or `missed`. Added in 2.10.0.
    dueState: Literal["on_time", "due_soon", "overdue", "met", "missed"]


class GrievanceList(TypedDict):
    grievances: List[Grievance]
    # Pass it back as `cursor` to read the next page of the same list (same filters); `null` on
    # the last page. Opaque: its form may change in any release.
    nextCursor: Optional[str]


class Nomination(TypedDict):
    nominationId: str
    nomineeName: str
    nomineeContact: str
    status: Literal["active", "revoked"]


class NominationRevocation(TypedDict):
    revoked: bool


_ConsentRecordRequired = TypedDict(
    "_ConsentRecordRequired",
    {
        # JSON-LD context for this consent-record representation. Guard always sends
        # `urn:guard:jsonld:consent-record:v1`, a stable identifier (not a fetchable document) that
        # changes only if this representation changes incompatibly.
        "@context": str,
        "consentId": str,
        "purpose": str,
        "dataTypes": List[str],
        # Unix epoch milliseconds.
        "givenAt": int,
        # Unix epoch milliseconds, or null while still active (the key is always present).
        "withdrawnAt": Optional[int],
        "status": Literal["active", "withdrawn"],
    },
)


class ConsentRecord(_ConsentRecordRequired, total=False):
    # The notice the consent was given against. Added in 2.10.0.
    noticeId: str
    # The notice version the consent was given against. Added in 2.10.0.
    noticeVersion: int
    # How the consent was given (`brokered`, `direct`, `anonymous`, `linked`), as its audit hash
    # covers it. Added in 2.12.0. The offline and assisted sources (`offline` for a signed device
    # capture, `offline_link` for a QR link, `offline_pos` for a confirmed point-of-sale request,
    # `offline_ivr` for an IVR acceptance), added in 2.14.0, lie outside the audit hash's source union
    # and are hashed as absent (`null`).
    source: Literal["brokered", "direct", "anonymous", "linked", "offline", "offline_link", "offline_pos", "offline_ivr"]
    # The consent's audit hash (lowercase hex HMAC-SHA256 of its canonical string,
    # `contract/specs/audit-hash.md`) as it stands now. Added in 2.12.0.
    auditHash: str
    # The version of the audit key `auditHash` was made with. Added in 2.12.0.
    auditKeyVersion: int


class ConsentStatusPrincipal(TypedDict):
    """The data principal the identifier resolved to."""

    principalId: str
    # The fiduciary's own id for the principal, if known.
    externalId: Optional[str]
    # The principal's email address, if known.
    email: Optional[str]


class _ConsentStatusEntryRequired(TypedDict):
    consentId: str
    noticeId: str
    noticeVersion: int
    purpose: str
    status: Literal["active", "withdrawn"]
    # Epoch ms.
    givenAt: int
    # Epoch ms, or null while active.
    withdrawnAt: Optional[int]


class ConsentStatusEntry(_ConsentStatusEntryRequired, total=False):
    # How the consent was given (`brokered`, `direct`, `anonymous`, `linked`), as its audit hash
    # covers it. Added in 2.12.0. The offline and assisted sources (`offline` for a signed device
    # capture, `offline_link` for a QR link, `offline_pos` for a confirmed point-of-sale request,
    # `offline_ivr` for an IVR acceptance), added in 2.14.0, lie outside the audit hash's source union
    # and are hashed as absent (`null`).
    source: Literal["brokered", "direct", "anonymous", "linked", "offline", "offline_link", "offline_pos", "offline_ivr"]
    # The consent's audit hash (lowercase hex HMAC-SHA256 of its canonical string,
    # `contract/specs/audit-hash.md`) as it stands now. Added in 2.12.0.
    auditHash: str
    # The version of the audit key `auditHash` was made with. Added in 2.12.0.
    auditKeyVersion: int


class ConsentStatus(TypedDict):
    # The data principal the identifier resolved to.
    principal: ConsentStatusPrincipal
    # Every consent of the principal at the calling key's organisation, newest first.
    consents: List[ConsentStatusEntry]


class _ConsentGateVerdictRequired(TypedDict):
    decision: Literal["allow", "deny"]
    reason: Literal["consent_active", "consent_withdrawn"]
    consentId: str


class ConsentGateVerdict(_ConsentGateVerdictRequired, total=False):
    # Id of the decision row this answer logged (the `decisionId` of the decision log); absent while
    # decision recording is switched off. Added in 2.10.0.
    decisionId: str


class ConsentGateDecision(TypedDict):
    """One immutable row of the Consent Gate decision audit log, written by `POST
    /api/v1/consent/verify` while decision recording is on.
    """

    # Stable id for this decision row, usable as a de-duplication key when tailing the log.
    decisionId: str
    # The consent record the decision was made about.
    consentId: str
    # Which of the organisation's own service API keys asked.
    apiKeyId: str
    decision: Literal["allow", "deny"]
    reason: Literal["consent_active", "consent_withdrawn"]
    # Epoch ms the decision was made.
    decidedAt: int


class ConsentGateDecisionList(TypedDict):
    decisions: List[ConsentGateDecision]
    # Pass it back as `cursor` to read the next page of the same list (same filters); `null` on
    # the last page. Opaque: its form may change in any release.
    nextCursor: Optional[str]


class ConsentGateBypassAlert(TypedDict):
    """A consent denied `denyThreshold` or more times inside the rolling `windowMs`. Derived from
    `ConsentGateDecision` rows; nothing separate is stored.
    """

    consentId: str
    # In-window denies against this consent.
    denyCount: int
    # Epoch ms of the earliest in-window deny.
    firstDeniedAt: int
    # Epoch ms of the most recent in-window deny.
    lastDeniedAt: int


class ConsentGateAlerts(TypedDict):
    alerts: List[ConsentGateBypassAlert]
    # The rolling window, in milliseconds, within which a deny counts toward an alert.
    windowMs: int
    # In-window denies against one consent that constitute an alert.
    denyThreshold: int
    # Pass it back as `cursor` to read the next page of the same list (same filters); `null` on
    # the last page. Opaque: its form may change in any release.
    nextCursor: Optional[str]


class _DueRetentionRequired(TypedDict):
    scheduledErasureId: str
    userId: str
    # Epoch ms the retention window elapsed.
    scheduledFor: int
    reason: str


class DueRetention(_DueRetentionRequired, total=False):
    # Epoch ms the principal was told of the coming erasure.
    preNotificationSentAt: int
    # The retention policy the erasure is under. Added in 2.15.0.
    policyId: str
    # Epoch ms the erasure became due (the later of `scheduledFor` and the notice plus its notice
    # hours). Added in 2.15.0.
    dueAt: int


class DueRetentionList(TypedDict):
    due: List[DueRetention]
    # Pass it back as `cursor` to read the next page of the same list (same filters); `null` on
    # the last page. Opaque: its form may change in any release.
    nextCursor: Optional[str]


class _BreachRequired(TypedDict):
    breachId: str
    description: str
    # Epoch ms the breach was discovered.
    discoveredAt: int
    status: Literal["reported_user_pending", "reported_user_done", "reported_board_pending", "reported_board_done"]


class Breach(_BreachRequired, total=False):
    # Epoch ms.
    reportedToUserAt: int
    # Epoch ms.
    reportedToBoardAt: int
    # Epoch ms.
    detailedReportSubmittedAt: int
    # Epoch ms.
    certInReportSubmittedAt: int
    mitigation: str
    # Epoch ms the breach occurred, when known. Added in 2.15.0.
    occurredAt: int
    # Epoch ms by which every affected principal is to be told (r.7(1), "without delay"; the window
    # chosen when the breach was recorded, at most 72 hours after discovery). Added in 2.15.0.
    principalNotificationDueAt: int
    # Epoch ms the detailed report to the Board is due (discovery + 72 hours, r.7(2)(b)). Added in
    # 2.15.0.
    boardReportDueAt: int


class BreachList(TypedDict):
    breaches: List[Breach]
    # Pass it back as `cursor` to read the next page of the same list (same filters); `null` on
    # the last page. Opaque: its form may change in any release.
    nextCursor: Optional[str]


class _ProcessingActivityRecipientRequired(TypedDict):
    # The processor's, recipient's or joint fiduciary's name. Not only whitespace.
    name: str
    role: Literal["processor", "recipient", "joint_fiduciary"]


class ProcessingActivityRecipient(_ProcessingActivityRecipientRequired, total=False):
    """Who receives the activity's data besides the fiduciary. Added in 2.15.0."""

    # Where the recipient processes the data. A country other than `IN` must be among the activity's
    # `destinationCountries`.
    country: str


class _CrossBorderTransferRequired(TypedDict):
    activityId: str
    activityName: str
    purpose: str
    dataCategories: List[str]
    legalBasis: Literal["consent", "deemed_consent", "legal_obligation", "vital_interest", "public_task"]
    # Epoch ms the processing-activity entry was created.
    createdAt: int


class CrossBorderTransfer(_CrossBorderTransferRequired, total=False):
    # The countries outside India the data goes to (ISO 3166-1 alpha-2). Added in 2.15.0.
    destinationCountries: List[str]
    # The activity's processors, recipients and joint fiduciaries. Added in 2.15.0.
    recipients: List[ProcessingActivityRecipient]
    # Where the data is kept, as the fiduciary describes it. Added in 2.15.0.
    storageLocation: str


class CrossBorderTransferList(TypedDict):
    transfers: List[CrossBorderTransfer]
    # Pass it back as `cursor` to read the next page of the same list (same filters); `null` on
    # the last page. Opaque: its form may change in any release.
    nextCursor: Optional[str]


class ErasureExecution(TypedDict):
    scheduledErasureId: str
    status: Literal["executed"]
    executedAt: int


class _OfflineConsentLinkRequired(TypedDict):
    linkId: str
    # Opaque token that resolves at `/offline-consent/{token}` on the deployment's origin; render that
    # URL as a QR code. Shown once; Guard keeps only its hash.
    token: str


class OfflineConsentLink(_OfflineConsentLinkRequired, total=False):
    # The absolute URL of the link's page, `<origin>/offline-consent/<token>`, on `GUARD_PUBLIC_URL`
    # when set, else the origin the request was made to; render it as the QR code. Added in 2.14.0.
    url: str


class _OfflineCaptureResultRequired(TypedDict):
    clientSessionId: str
    # `verified` (consent recorded), `quarantined` (kept as evidence, no consent), `rejected` (could
    # not be parsed into an artefact).
    status: Literal["verified", "quarantined", "rejected"]


class OfflineCaptureResult(_OfflineCaptureResultRequired, total=False):
    consentId: str
    # Present for a non-verified session: `unknown_device`, `device_revoked`, `signature_mismatch`,
    # `clock_skew`, `notice_unpublished`, `notice_superseded` (quarantined) or `invalid_session`
    # (rejected).
    reason: str
    # Present when a consent receipt was issued. Hand it to the principal (printed slip or read out);
    # it is what makes the consent withdrawable under s.6(4).
    withdrawalToken: str
    # Every consent the session gave, one per `opt_in` purpose in purpose order (`consentId` is the
    # first); one `withdrawalToken` withdraws them all. Present when `status` is `verified` (empty
    # when the principal opted in to nothing). Added in 2.14.0.
    consentIds: List[str]


class OfflineCaptureSyncResult(TypedDict):
    results: List[OfflineCaptureResult]


class _PosConsentRequestRequired(TypedDict):
    requestId: str
    token: str
    # Epoch ms after which the request expires unanswered (72 hours).
    expiresAt: int


class PosConsentRequest(_PosConsentRequestRequired, total=False):
    # The absolute URL of the page the customer answers at (`/consent/{token}` on `GUARD_PUBLIC_URL`,
    # else on the origin the till called); render it as a short link or QR code. Added in 2.14.0.
    url: str


class _IvrConsentArtifactResultRequired(TypedDict):
    artifactId: str
    accepted: bool


class IvrConsentArtifactResult(_IvrConsentArtifactResultRequired, total=False):
    # The consent recorded on acceptance; null (or absent) on a refusal.
    consentId: Optional[str]
    # Present on acceptance. The agent or the IVR reads it out to the caller; with it the caller
    # withdraws the consent at `/withdraw` or through `POST /api/v1/offline/withdrawals` (DPDP
    # s.6(4)). Answered again on a resubmission. Added in 2.14.0.
    withdrawalToken: str


class OfflineCaptureSessionPurposeGrantsItem(TypedDict):
    # A consent purpose label such as `Marketing`. Part of the audit hash, so it may not contain `|`.
    purposeKey: str
    purposeLabel: str
    category: Literal["essential", "non_essential"]
    status: Literal["opt_in", "opt_out"]


class OfflineCaptureSessionPrincipalHandle(TypedDict):
    """The identity handle the principal can later withdraw by. Signed raw; a `phone_hash` value is
    HMAC'd per organisation server-side and the raw number is never stored.
    """

    kind: Literal["phone_hash", "uhid", "cbs_ref", "none"]
    value: str


class _OfflineCaptureSessionRequired(TypedDict):
    # Client-generated UUIDv4 and the idempotency key. Re-syncing a session that already committed is
    # a no-op that returns the first result.
    clientSessionId: str
    # The enrolled device whose key signed this.
    deviceId: str
    # Opaque id: a 2-6 letter type prefix, `_`, then 8-64 letters or digits (`org_...`, `ntc_...`,
    # `cns_...`). At most 71 characters; never contains `|` or `,`. A malformed id in a path, query
    # or body is `400 VALIDATION_ERROR`.
    noticeId: str
    # Quarantined as `notice_superseded` if the notice has since moved on.
    noticeVersion: int
    # Language actually rendered. Inside the signature, because s.5(3) evidence is about which
    # language was read.
    noticeLocale: str
    channel: Literal["qr", "agent_app", "pos", "async_link", "ivr"]
    # Device clock at capture, epoch ms. Recorded verbatim; skew beyond 7 days quarantines as
    # `clock_skew`.
    capturedAtClient: int
    # Standard padded base64 of the raw 64-byte IEEE-P1363 `r||s` ECDSA P-256 signature (not DER), so
    # exactly 88 characters ending in `==`. Anything else (DER, a truncated signature, base64url,
    # missing padding) fails the whole request with `400 VALIDATION_ERROR`; the pattern was added in
    # 2.14.0.
    deviceSignature: str
    # Personal-data types the consent covers (1-100).
    dataTypes: List[str]
    # Every purpose the principal was shown, opted in or out (1-100).
    purposeGrants: List[OfflineCaptureSessionPurposeGrantsItem]


class OfflineCaptureSession(_OfflineCaptureSessionRequired, total=False):
    """One physical consent interaction, created and signed on an enrolled device and replayed on
    sync. The signature is ECDSA P-256 / SHA-256 over the `dpdpcca/2` canonical string
    (`contract/specs`, vectors in `contract/vectors`).
    """

    # The identity handle the principal can later withdraw by. Signed raw; a `phone_hash` value is
    # HMAC'd per organisation server-side and the raw number is never stored.
    principalHandle: OfflineCaptureSessionPrincipalHandle
    # Set for QR-originated captures only.
    linkId: str


# operationId -> the type its success body has; the client methods are annotated with these.
RESPONSE_TYPES: Dict[str, str] = {
    "getOrgBySlug": "OrgSummary",
    "getNoticesForOrg": "NoticeList",
    "getNoticeById": "Notice",
    "getBannerConfig": "BannerConfig",
    "giveConsentAnonymous": "AnonymousConsent",
    "withdrawConsentByToken": "WithdrawalByTokenResult",
    "brokerToken": "BrokeredToken",
    "linkAnonymousConsent": "AnonymousConsentLink",
    "listDsrRequestsForCurrentUser": "DsrRequestList",
    "createDsrRequest": "DsrRequest",
    "listGrievancesForCurrentUser": "GrievanceList",
    "createGrievance": "Grievance",
    "getNomination": "Optional[Nomination]",
    "upsertNomination": "Nomination",
    "revokeNomination": "NominationRevocation",
    "recordConsent": "ConsentRecord",
    "getConsent": "ConsentRecord",
    "withdrawConsent": "ConsentRecord",
    "getConsentStatus": "ConsentStatus",
    "verifyConsentGate": "ConsentGateVerdict",
    "listConsentGateDecisions": "ConsentGateDecisionList",
    "listConsentGateBypassAlerts": "ConsentGateAlerts",
    "listDueRetentions": "DueRetentionList",
    "listBreaches": "BreachList",
    "listCrossBorderTransfers": "CrossBorderTransferList",
    "confirmRetentionErasureExecuted": "ErasureExecution",
    "createOfflineConsentLink": "OfflineConsentLink",
    "syncOfflineCaptures": "OfflineCaptureSyncResult",
    "createPosConsentRequest": "PosConsentRequest",
    "recordIvrConsentArtifact": "IvrConsentArtifactResult",
}

__all__ = [
    "API_ERROR_CODES",
    "ApiErrorCode",
    "CONTRACT_VERSION",
    "OPENAPI_DESCRIPTION_VERSION",
    "AnonymousConsent",
    "AnonymousConsentLink",
    "AnonymousConsentLinkNeedsReconsentItem",
    "BannerConfig",
    "Breach",
    "BreachList",
    "BrokeredToken",
    "ConsentGateAlerts",
    "ConsentGateBypassAlert",
    "ConsentGateDecision",
    "ConsentGateDecisionList",
    "ConsentGateVerdict",
    "ConsentRecord",
    "ConsentStatus",
    "ConsentStatusEntry",
    "ConsentStatusPrincipal",
    "CrossBorderTransfer",
    "CrossBorderTransferList",
    "DsrRequest",
    "DsrRequestList",
    "DueRetention",
    "DueRetentionList",
    "ErasureExecution",
    "Grievance",
    "GrievanceList",
    "IvrConsentArtifactResult",
    "Nomination",
    "NominationRevocation",
    "Notice",
    "NoticeItemizedPurpose",
    "NoticeLanguageContent",
    "NoticeList",
    "OfflineCaptureResult",
    "OfflineCaptureSession",
    "OfflineCaptureSessionPrincipalHandle",
    "OfflineCaptureSessionPurposeGrantsItem",
    "OfflineCaptureSyncResult",
    "OfflineConsentLink",
    "OrgSummary",
    "PosConsentRequest",
    "ProcessingActivityRecipient",
    "WithdrawalByTokenResult",
    "WithdrawalByTokenResultWithdrawnItem",
]
