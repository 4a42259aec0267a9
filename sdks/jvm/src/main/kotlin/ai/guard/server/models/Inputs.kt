package ai.guard.server.models

import kotlinx.serialization.Serializable

// Request bodies and query parameters. The server validates them against the contract (a bad value is
// a 400 GuardApiError naming the field), so the SDK does not duplicate those rules; enum-like fields
// are Strings for the same reason, with the known values as constants.

/** The `type` values of a DSR request. */
public object DsrTypes {
    public const val SUMMARY: String = "summary"
    public const val PROCESSORS: String = "processors"
    public const val CORRECTION: String = "correction"
    public const val ERASURE: String = "erasure"
}

/** Body of `giveAnonymousConsent`: a guest's consent, keyed by a client-generated [anonymousId]. */
@Serializable
public data class AnonymousConsentInput(
    public val organizationId: String,
    public val noticeId: String,
    public val purpose: String,
    public val dataTypes: List<String>,
    public val anonymousId: String,
)

/** Body of `createDsrRequest`. */
@Serializable
public data class CreateDsrRequestInput @JvmOverloads constructor(
    public val organizationId: String,
    /** One of [DsrTypes]. */
    public val type: String,
    /** Free text; comes back as `requestDetails`. */
    public val details: String? = null,
)

/** Body of `createGrievance`. */
@Serializable
public data class CreateGrievanceInput(
    public val organizationId: String,
    public val subject: String,
    public val description: String,
)

/** Body of `upsertNomination`. */
@Serializable
public data class NominationInput(
    public val nomineeName: String,
    /** Email address or phone number of the nominee. */
    public val nomineeContact: String,
)

/** Body of `recordConsent` (`/cm/v1/consent`): the principal is found by [email]. */
@Serializable
public data class RecordConsentInput(
    public val email: String,
    public val noticeId: String,
    public val purpose: String,
    public val dataTypes: List<String>,
)

/** Query of `getBannerConfig`: a web [domain], a native [appId], or neither for the organisation default. */
public data class BannerConfigQuery @JvmOverloads constructor(
    public val domain: String? = null,
    public val appId: String? = null,
) {
    public companion object {
        @JvmField
        public val ORGANIZATION_DEFAULT: BannerConfigQuery = BannerConfigQuery()

        @JvmStatic
        public fun domain(domain: String): BannerConfigQuery = BannerConfigQuery(domain = domain)

        @JvmStatic
        public fun appId(appId: String): BannerConfigQuery = BannerConfigQuery(appId = appId)
    }
}

/** Query of `getConsentStatus`: exactly one of email and external id, so the constructor is private. */
public class ConsentStatusQuery private constructor(
    public val email: String? = null,
    public val externalId: String? = null,
) {
    override fun equals(other: Any?): Boolean =
        other is ConsentStatusQuery && other.email == email && other.externalId == externalId

    override fun hashCode(): Int = 31 * (email?.hashCode() ?: 0) + (externalId?.hashCode() ?: 0)

    override fun toString(): String = if (email != null) "ConsentStatusQuery(email=$email)" else "ConsentStatusQuery(externalId=$externalId)"

    public companion object {
        @JvmStatic
        public fun byEmail(email: String): ConsentStatusQuery = ConsentStatusQuery(email = email)

        @JvmStatic
        public fun byExternalId(externalId: String): ConsentStatusQuery = ConsentStatusQuery(externalId = externalId)
    }
}

/**
 * Query of `listGateDecisions`: how many decisions per page, newest first (server default 50, at
 * most 200), and the `nextCursor` of the previous page (contract 1.8.0).
 */
public data class GateDecisionsQuery @JvmOverloads constructor(public val limit: Int? = null, public val cursor: String? = null) {
    public companion object {
        @JvmField
        public val DEFAULT: GateDecisionsQuery = GateDecisionsQuery()
    }
}

/**
 * One page of a paged list (contract 1.8.0): [limit] items (server default 100, values above 500
 * are served as 500) after [cursor], the previous page's `nextCursor` (null: the first page).
 */
public data class PageQuery @JvmOverloads constructor(public val limit: Int? = null, public val cursor: String? = null) {
    public companion object {
        @JvmField
        public val FIRST: PageQuery = PageQuery()
    }
}

// ----- offline and assisted capture (contract 2.14.0) -----------------------------------------------

/** The `channel` values of a device and of a capture session. */
public object CaptureChannels {
    public const val QR: String = "qr"
    public const val AGENT_APP: String = "agent_app"
    public const val POS: String = "pos"
    public const val ASYNC_LINK: String = "async_link"
    public const val IVR: String = "ivr"
}

/** Body of `createOfflineConsentLink`: a QR link for a published notice. */
@Serializable
public data class CreateOfflineConsentLinkInput @JvmOverloads constructor(
    public val noticeId: String,
    public val purpose: String,
    public val dataTypes: List<String>,
    /** Where the link or QR code is deployed (e.g. "Mumbai Branch - Counter 3"); shown to staff only. */
    public val label: String? = null,
)

/** One purpose a capture session showed the principal; only [purposeKey] and [status] are signed. */
@Serializable
public data class OfflineCapturePurposeGrant(
    public val purposeKey: String,
    public val purposeLabel: String,
    /** `essential` or `non_essential`. */
    public val category: String,
    /** `opt_in` or `opt_out`. */
    public val status: String,
)

/** The identity handle a principal can later withdraw by; [value] is signed raw. */
@Serializable
public data class OfflinePrincipalHandle(
    /** `phone_hash`, `uhid`, `cbs_ref` or `none`. */
    public val kind: String,
    public val value: String,
)

/**
 * `OfflineCaptureSession`: one consent interaction as an enrolled device built and signed it. A server
 * fronting a fleet forwards it unchanged (decode the device's JSON into this class; unsigned fields it
 * lacks do not affect the signature). [deviceSignature] is base64 of the raw 64-byte `r‖s`.
 */
@Serializable
public data class OfflineCaptureSession @JvmOverloads constructor(
    public val clientSessionId: String,
    public val deviceId: String,
    public val noticeId: String,
    public val noticeVersion: Long,
    public val noticeLocale: String,
    /** One of [CaptureChannels]. */
    public val channel: String,
    /** Device clock at capture, epoch ms. */
    public val capturedAtClient: Long,
    public val deviceSignature: String,
    public val dataTypes: List<String>,
    public val purposeGrants: List<OfflineCapturePurposeGrant>,
    public val principalHandle: OfflinePrincipalHandle? = null,
    /** Set for QR-originated captures only. */
    public val linkId: String? = null,
)

/** Body of `syncOfflineCaptures`. */
@Serializable
internal data class OfflineCaptureBatch(public val sessions: List<OfflineCaptureSession>)

/** Body of `createPosConsentRequest`: the phone number as keyed in at the till. */
@Serializable
public data class PosConsentRequestInput(
    public val noticeId: String,
    public val purpose: String,
    public val dataTypes: List<String>,
    /** Must contain at least one digit; Guard keeps only a keyed hash of it. */
    public val phone: String,
)

/** Body of `recordIvrConsentArtifact` (the contract's `IvrConsentArtifact`), from a telephony partner. */
@Serializable
public data class IvrConsentArtifactInput @JvmOverloads constructor(
    public val noticeId: String,
    /** The partner's id for the call; a resubmission returns the original artefact. */
    public val partnerCallId: String,
    public val audioRecordingUri: String,
    /** A language the notice has content for (`hi-IN` matches `hi`). */
    public val locale: String,
    /** Beginning with `1`: acceptance (a consent); anything else a refusal, kept as evidence. */
    public val dtmfSequence: String,
    /** Hashed by the partner; Guard never receives the number. */
    public val callerNumberHash: String,
    /** Epoch ms of the call. */
    public val capturedAt: Long,
    /** Kept verbatim as an assertion of origin; Guard does not verify it. */
    public val partnerSignature: String,
    public val purpose: String,
    public val dataTypes: List<String>,
    public val transcript: String? = null,
)

// ----- registers (contract 2.15.0) -------------------------------------------------------------------

/** Body of `confirmErasureExecuted`: when the data was erased (epoch ms); null: the server's now. */
@Serializable
public data class ErasureExecutionInput @JvmOverloads constructor(
    public val executedAt: Long? = null,
)
