package ai.guard.server.models

import kotlinx.serialization.SerialName
import kotlinx.serialization.Serializable
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject

// Responses, one class per schema of contract/openapi/v1.yaml that the client returns. ContractTest
// walks each class against its schema (names, required-ness, nullability, JSON types) and fails when
// the contract moves without them. Rules: a required property has no default; an optional one is
// nullable with default null; a status-like enum is a String (the contract adds values in minor
// releases, and an unknown value must not break decoding); times are epoch milliseconds as Long.

/** `OrgSummary`: an organisation, looked up by its short name. */
@Serializable
public data class OrgSummary(
    public val orgId: String,
    public val name: String,
    public val slug: String,
)

/** `NoticeItemizedPurpose`: one purpose a notice itemises, with the personal data it uses. */
@Serializable
public data class NoticeItemizedPurpose @JvmOverloads constructor(
    public val purpose: String,
    public val personalDataDescription: String,
    /** Whether the purpose is tracking, behavioural monitoring or targeted advertising (DPDP s.9(3)), when the notice says. */
    public val tracking: Boolean? = null,
    /** The personal-data types consent to this purpose covers, when the notice names them (contract 1.9.0). */
    public val dataTypes: List<String>? = null,
)

/** `NoticeLanguageContent`: the notice text in one language. */
@Serializable
public data class NoticeLanguageContent @JvmOverloads constructor(
    public val title: String,
    public val body: String,
    public val withdrawal: String? = null,
    public val rights: String? = null,
    public val complaint: String? = null,
)

/** `Notice`: a versioned privacy notice. */
@Serializable
public data class Notice @JvmOverloads constructor(
    /** The wire's `_id`. */
    @SerialName("_id") public val id: String,
    public val organizationId: String,
    public val version: Int,
    public val itemized: List<NoticeItemizedPurpose>,
    /** Language code (`en`, `hi`, ...) to the text in that language. */
    public val content: Map<String, NoticeLanguageContent>,
    /** `draft`, `published`, `superseded` or `archived`. */
    public val status: String,
    /** Same value as [id] (added in contract 1.7.0). */
    public val noticeId: String? = null,
    public val publishedAt: Long? = null,
    public val languages: List<String>? = null,
    /** The organisation's name for the notice; `default` is its default notice (contract 1.9.0). */
    public val key: String? = null,
)

/** `{ notices }` of `GET /api/v1/org/{orgId}/notices`: published notices only. */
@Serializable
public data class NoticeList @JvmOverloads constructor(
    public val notices: List<Notice>,
    /** Pass back as `cursor` (in [ai.guard.server.models.PageQuery]) for the next page; null on the last. Added in contract 1.8.0. */
    public val nextCursor: String? = null,
)

/** Banner configuration of a domain, an app, or the organisation default. */
@Serializable
public data class BannerConfig @JvmOverloads constructor(
    /** Presentation-config version; never triggers re-consent (unlike [Notice.version]). */
    public val configVersion: Int,
    /** The dashboard's presentation settings: an open object. */
    public val bannerSettings: JsonObject? = null,
)

/** The answer to an anonymous consent capture. */
@Serializable
public data class AnonymousConsent(
    public val consentId: String,
    public val purpose: String,
    public val dataTypes: List<String>,
    public val givenAt: Long,
)

/** A short-lived principal access token (15 minutes by default). */
@Serializable
public data class BrokeredToken(
    public val accessToken: String,
    /** Epoch ms. */
    public val expiresAt: Long,
    /** Always `Bearer`. */
    public val tokenType: String,
) {
    /** The token is a secret: it stays out of logs. */
    override fun toString(): String = "BrokeredToken(accessToken=<redacted>, expiresAt=$expiresAt, tokenType=$tokenType)"
}

/** A (notice, purpose) pair whose notice moved to a newer version since the guest consented. */
@Serializable
public data class NoticePurpose(
    public val noticeId: String,
    public val purpose: String,
)

/** The answer to linking a guest's anonymous consents into the signed-in principal. */
@Serializable
public data class LinkAnonymousConsentResult(
    /** Consents newly linked by this call (0 on a repeat). */
    public val linkedCount: Int,
    public val needsReconsent: List<NoticePurpose>,
)

/** `DsrRequest`: a data-subject request. */
@Serializable
public data class DsrRequest @JvmOverloads constructor(
    public val requestId: String,
    /** `summary`, `processors`, `correction` or `erasure` (see [DsrTypes]). */
    public val type: String,
    /** `pending`, `in_progress`, `completed` or `rejected`. */
    public val status: String,
    /** SLA deadline, epoch ms. */
    public val dueAt: Long? = null,
    /** The `details` the principal filed. */
    public val requestDetails: String? = null,
    public val organizationId: String? = null,
    public val createdAt: Long? = null,
    /** Your id of the principal who filed it (a pseudonym once their data is erased). */
    public val externalId: String? = null,
    /** The answer to the principal, once given: a summary, an erasure report, a statutory denial…; any JSON. */
    public val responsePayload: JsonElement? = null,
    /** Epoch ms the request reached `completed` or `rejected`. */
    public val closedAt: Long? = null,
    /** Where the statutory clock stands: `on_time`, `due_soon`, `overdue`, `met` or `missed`. */
    public val dueState: String? = null,
)

/** `{ requests }` of `GET /api/v1/dsr`. */
@Serializable
public data class DsrRequestList @JvmOverloads constructor(
    public val requests: List<DsrRequest>,
    /** Pass back as `cursor` (in [ai.guard.server.models.PageQuery]) for the next page; null on the last. Added in contract 1.8.0. */
    public val nextCursor: String? = null,
)

/** `Grievance`. */
@Serializable
public data class Grievance @JvmOverloads constructor(
    public val grievanceId: String,
    public val subject: String,
    public val description: String,
    /** `open`, `in_progress` or `resolved`. */
    public val status: String,
    /** SLA deadline, epoch ms. */
    public val dueAt: Long,
    public val respondedAt: Long? = null,
    public val response: String? = null,
    public val organizationId: String? = null,
    public val createdAt: Long? = null,
    /** Your id of the principal who filed it (a pseudonym once their data is erased). */
    public val externalId: String? = null,
    /** Epoch ms the grievance was resolved. */
    public val closedAt: Long? = null,
    /** Where the statutory clock stands: `on_time`, `due_soon`, `overdue`, `met` or `missed`. */
    public val dueState: String? = null,
)

/** `{ grievances }` of `GET /api/v1/grievances`. */
@Serializable
public data class GrievanceList @JvmOverloads constructor(
    public val grievances: List<Grievance>,
    /** Pass back as `cursor` (in [ai.guard.server.models.PageQuery]) for the next page; null on the last. Added in contract 1.8.0. */
    public val nextCursor: String? = null,
)

/** `Nomination`: the principal's successor nomination. */
@Serializable
public data class Nomination(
    public val nominationId: String,
    public val nomineeName: String,
    public val nomineeContact: String,
    /** `active` or `revoked`. */
    public val status: String,
)

/** The answer to revoking a nomination; [revoked] is false when none was active (a no-op). */
@Serializable
public data class NominationRevocation(public val revoked: Boolean)

/** The part of a consent record [ai.guard.server.hasConsent] reads. */
public interface ConsentLike {
    public val purpose: String

    /** Null while the consent is active. */
    public val withdrawnAt: Long?
}

/** `ConsentRecord`: a persisted consent (shape unchanged since contract 1.0.0). */
@Serializable
public data class ConsentRecord @JvmOverloads constructor(
    /** The wire's `@context` (JSON-LD): `urn:guard:jsonld:consent-record:v1`. */
    @SerialName("@context") public val context: String,
    public val consentId: String,
    override val purpose: String,
    public val dataTypes: List<String>,
    public val givenAt: Long,
    override val withdrawnAt: Long?,
    /** `active` or `withdrawn`. */
    public val status: String,
    /** The notice the consent was given against. */
    public val noticeId: String? = null,
    public val noticeVersion: Int? = null,
    /** How the consent was given: `brokered`, `direct`, `anonymous` or `linked` (contract 1.9.0). */
    public val source: String? = null,
    /** The consent's audit hash, lowercase hex (contract 1.9.0); check it with [computeAuditHash]. */
    public val auditHash: String? = null,
    /** The audit key version [auditHash] was made with (contract 1.9.0). */
    public val auditKeyVersion: Int? = null,
) : ConsentLike

/** The principal a consent-status lookup resolved to. */
@Serializable
public data class ConsentStatusPrincipal(
    public val principalId: String,
    public val externalId: String?,
    public val email: String?,
)

/** `ConsentStatusEntry`: one consent in a consent-status answer. */
@Serializable
public data class ConsentStatusEntry @JvmOverloads constructor(
    public val consentId: String,
    public val noticeId: String,
    public val noticeVersion: Int,
    override val purpose: String,
    /** `active` or `withdrawn`. */
    public val status: String,
    public val givenAt: Long,
    override val withdrawnAt: Long?,
    /** How the consent was given: `brokered`, `direct`, `anonymous` or `linked` (contract 1.9.0). */
    public val source: String? = null,
    /** The consent's audit hash, lowercase hex (contract 1.9.0); check it with [computeAuditHash]. */
    public val auditHash: String? = null,
    /** The audit key version [auditHash] was made with (contract 1.9.0). */
    public val auditKeyVersion: Int? = null,
) : ConsentLike

/** `ConsentStatus`: a principal and every consent they hold at the key's organisation, newest first. */
@Serializable
public data class ConsentStatus(
    public val principal: ConsentStatusPrincipal,
    public val consents: List<ConsentStatusEntry>,
)

/**
 * `ConsentGateVerdict`: the Consent Gate's answer to [ai.guard.server.GuardClient.verifyConsent], may
 * processing that depends on this consent go ahead? Not to be confused with [ConsentGateDecision], a
 * row of the decision log, which adds who asked and when. Formerly `ConsentVerification`, which stays
 * as a deprecated alias.
 */
@Serializable
public data class ConsentGateVerdict @JvmOverloads constructor(
    /** `allow` or `deny`. */
    public val decision: String,
    /** `consent_active` or `consent_withdrawn`. */
    public val reason: String,
    public val consentId: String,
    /** The decision-log row this answer wrote; null while decision recording is off. */
    public val decisionId: String? = null,
) {
    /** True when [decision] is `allow`. */
    public val isAllowed: Boolean get() = decision == "allow"
}

/**
 * The former name of [ConsentGateVerdict], kept so Kotlin code written against it still compiles. A
 * type alias has no class file of its own, so Java code must use `ConsentGateVerdict`.
 */
@Deprecated("Renamed to ConsentGateVerdict, the contract's name for the Consent Gate's answer.", ReplaceWith("ConsentGateVerdict"))
public typealias ConsentVerification = ConsentGateVerdict

/** `ConsentGateDecision`: one immutable row of the Consent Gate decision log. */
@Serializable
public data class ConsentGateDecision(
    public val decisionId: String,
    public val consentId: String,
    public val apiKeyId: String,
    /** `allow` or `deny`. */
    public val decision: String,
    /** `consent_active` or `consent_withdrawn`. */
    public val reason: String,
    public val decidedAt: Long,
)

/** `{ decisions }` of the decision log, newest first. */
@Serializable
public data class ConsentGateDecisionList @JvmOverloads constructor(
    public val decisions: List<ConsentGateDecision>,
    /** Pass back as `cursor` (in [ai.guard.server.models.PageQuery]) for the next page; null on the last. Added in contract 1.8.0. */
    public val nextCursor: String? = null,
)

/** `ConsentGateBypassAlert`: a consent denied `denyThreshold` or more times inside the window. */
@Serializable
public data class ConsentGateBypassAlert(
    public val consentId: String,
    public val denyCount: Int,
    public val firstDeniedAt: Long,
    public val lastDeniedAt: Long,
)

/** Current bypass alerts, with the window and threshold that produced them. */
@Serializable
public data class ConsentGateAlertList @JvmOverloads constructor(
    public val alerts: List<ConsentGateBypassAlert>,
    public val windowMs: Long,
    public val denyThreshold: Int,
    /** Pass back as `cursor` (in [ai.guard.server.models.PageQuery]) for the next page; null on the last. Added in contract 1.8.0. */
    public val nextCursor: String? = null,
)

// ----- registers (contract 2.15.0, tag `registers`) ------------------------------------------------

/**
 * `DueRetention`: a scheduled erasure whose retention window has elapsed (DPDP s.8(7), r.8). Erase
 * the principal's data, then confirm the erasure.
 */
@Serializable
public data class DueRetention @JvmOverloads constructor(
    public val scheduledErasureId: String,
    /** Your identifier of the principal (their `externalId`). */
    public val userId: String,
    /** Epoch ms the retention window elapsed. */
    public val scheduledFor: Long,
    public val reason: String,
    /** Epoch ms the principal was told of the coming erasure. */
    public val preNotificationSentAt: Long? = null,
    /** The retention policy the erasure is under. */
    public val policyId: String? = null,
    /** Epoch ms the erasure became due (the later of [scheduledFor] and the notice plus its notice hours). */
    public val dueAt: Long? = null,
)

/** `{ due, nextCursor }` of `GET /api/v1/retention/due`. */
@Serializable
public data class DueRetentionList(
    public val due: List<DueRetention>,
    /** Pass back as `cursor` (in [ai.guard.server.models.PageQuery]) for the next page; null on the last. */
    public val nextCursor: String?,
)

/**
 * `Breach`: one entry of the breach register (s.8(6)); drills are never listed. [status] is one of
 * [BreachStatuses] (a String: a later release may add values). Times are epoch ms.
 */
@Serializable
public data class Breach @JvmOverloads constructor(
    public val breachId: String,
    public val description: String,
    /** Epoch ms the breach was discovered; the clocks run from it. */
    public val discoveredAt: Long,
    public val status: String,
    public val reportedToUserAt: Long? = null,
    public val reportedToBoardAt: Long? = null,
    public val detailedReportSubmittedAt: Long? = null,
    public val certInReportSubmittedAt: Long? = null,
    public val mitigation: String? = null,
    /** Epoch ms the breach occurred, when known. */
    public val occurredAt: Long? = null,
    /** Epoch ms by which every affected principal is to be told (r.7(1), "without delay"). */
    public val principalNotificationDueAt: Long? = null,
    /** Epoch ms the detailed report to the Board is due (discovery + 72 hours, r.7(2)(b)). */
    public val boardReportDueAt: Long? = null,
)

/** The `status` values of a [Breach]: the first obligation still open. */
public object BreachStatuses {
    public const val REPORTED_USER_PENDING: String = "reported_user_pending"
    public const val REPORTED_USER_DONE: String = "reported_user_done"
    public const val REPORTED_BOARD_PENDING: String = "reported_board_pending"
    public const val REPORTED_BOARD_DONE: String = "reported_board_done"
}

/** `{ breaches, nextCursor }` of `GET /api/v1/breaches`. */
@Serializable
public data class BreachList(
    public val breaches: List<Breach>,
    /** Pass back as `cursor` (in [ai.guard.server.models.PageQuery]) for the next page; null on the last. */
    public val nextCursor: String?,
)

/** `ProcessingActivityRecipient`: who receives an activity's data besides the fiduciary. */
@Serializable
public data class ProcessingActivityRecipient @JvmOverloads constructor(
    public val name: String,
    /** `processor`, `recipient` or `joint_fiduciary`. */
    public val role: String,
    /** Where the recipient processes the data (ISO 3166-1 alpha-2). */
    public val country: String? = null,
)

/**
 * `CrossBorderTransfer`: an active processing activity declared as crossing borders (s.16).
 * [legalBasis] is `consent`, `deemed_consent`, `legal_obligation`, `vital_interest` or `public_task`.
 */
@Serializable
public data class CrossBorderTransfer @JvmOverloads constructor(
    public val activityId: String,
    public val activityName: String,
    public val purpose: String,
    public val dataCategories: List<String>,
    public val legalBasis: String,
    /** Epoch ms the processing-activity entry was created. */
    public val createdAt: Long,
    /** The countries outside India the data goes to (ISO 3166-1 alpha-2). */
    public val destinationCountries: List<String>? = null,
    public val recipients: List<ProcessingActivityRecipient>? = null,
    /** Where the data is kept, as the fiduciary describes it. */
    public val storageLocation: String? = null,
)

/** `{ transfers, nextCursor }` of `GET /api/v1/cross-border/transfers`. */
@Serializable
public data class CrossBorderTransferList(
    public val transfers: List<CrossBorderTransfer>,
    /** Pass back as `cursor` (in [ai.guard.server.models.PageQuery]) for the next page; null on the last. */
    public val nextCursor: String?,
)

/** The answer of `confirmErasureExecuted`: the first confirmation, also on a repeat. */
@Serializable
public data class ErasureExecution(
    public val scheduledErasureId: String,
    /** Always `executed`. */
    public val status: String,
    /** Epoch ms the data was erased, as first confirmed. */
    public val executedAt: Long,
)

/** `OfflineConsentLink`: render `/offline-consent/{token}` on Guard's origin as a QR code. */
@Serializable
public data class OfflineConsentLink @JvmOverloads constructor(
    public val linkId: String,
    /** Shown once; Guard keeps only its hash. */
    public val token: String,
    /** The absolute URL of the link's page, `<origin>/offline-consent/<token>`: render it as the QR code (contract 2.14.0). */
    public val url: String? = null,
)

/** `OfflineCaptureResult`: the outcome of one synced session. */
@Serializable
public data class OfflineCaptureResult @JvmOverloads constructor(
    public val clientSessionId: String,
    /** `verified` (consent recorded), `quarantined` (kept as evidence, no consent) or `rejected`. */
    public val status: String,
    public val consentId: String? = null,
    /** For a session that is not verified: `unknown_device`, `device_revoked`, `signature_mismatch`, `clock_skew`, `notice_unpublished`, `notice_superseded` or `invalid_session`. */
    public val reason: String? = null,
    /** Hand it to the principal: it is what makes the consent withdrawable (DPDP s.6(4)). */
    public val withdrawalToken: String? = null,
    /** Every consent the session gave, one per `opt_in` purpose (contract 2.14.0). */
    public val consentIds: List<String>? = null,
) {
    /** True when [status] is `verified`. */
    public val isVerified: Boolean get() = status == "verified"
}

/** `{ results }` of `syncOfflineCaptures`: one per session, in the order sent. Partial success is normal. */
@Serializable
public data class OfflineCaptureSyncResult(public val results: List<OfflineCaptureResult>)

/** A pending point-of-sale request: not a consent until the customer confirms at `/consent/{token}`. */
@Serializable
public data class PosConsentRequest @JvmOverloads constructor(
    public val requestId: String,
    public val token: String,
    /** Epoch ms after which the request expires unanswered (72 hours). */
    public val expiresAt: Long,
    /** The confirmation page for the receipt (contract 2.14.0). */
    public val url: String? = null,
)

/** The stored IVR artefact: [accepted] with its consent, or a refusal kept as evidence. */
@Serializable
public data class IvrConsentArtifactResult @JvmOverloads constructor(
    public val artifactId: String,
    public val accepted: Boolean,
    /** The consent recorded on acceptance; null on a refusal. */
    public val consentId: String? = null,
    /** On acceptance: read it out to the caller, who withdraws with it. */
    public val withdrawalToken: String? = null,
)

/** One consent a withdrawal token's use withdrew. */
@Serializable
public data class WithdrawnConsent(
    public val consentId: String,
    public val purpose: String,
    public val noticeId: String,
    public val withdrawnAt: Long,
)

/** The answer to `withdrawConsentByToken`: withdrawn now, and already withdrawn before. */
@Serializable
public data class WithdrawalByTokenResult(
    public val withdrawn: List<WithdrawnConsent>,
    public val alreadyWithdrawn: List<String>,
)
