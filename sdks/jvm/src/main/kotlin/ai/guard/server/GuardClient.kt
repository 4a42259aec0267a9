package ai.guard.server

import ai.guard.server.http.HttpTransport
import ai.guard.server.http.JdkHttpTransport
import ai.guard.server.http.TransportRequest
import ai.guard.server.http.TransportResponse
import ai.guard.server.models.AnonymousConsent
import ai.guard.server.models.AnonymousConsentInput
import ai.guard.server.models.BannerConfig
import ai.guard.server.models.BannerConfigQuery
import ai.guard.server.models.Breach
import ai.guard.server.models.BreachList
import ai.guard.server.models.BrokeredToken
import ai.guard.server.models.ConsentGateAlertList
import ai.guard.server.models.ConsentGateDecisionList
import ai.guard.server.models.ConsentGateVerdict
import ai.guard.server.models.ConsentRecord
import ai.guard.server.models.ConsentStatus
import ai.guard.server.models.ConsentStatusQuery
import ai.guard.server.models.CreateDsrRequestInput
import ai.guard.server.models.CreateGrievanceInput
import ai.guard.server.models.CreateOfflineConsentLinkInput
import ai.guard.server.models.CrossBorderTransfer
import ai.guard.server.models.CrossBorderTransferList
import ai.guard.server.models.DsrRequest
import ai.guard.server.models.DsrRequestList
import ai.guard.server.models.DueRetention
import ai.guard.server.models.DueRetentionList
import ai.guard.server.models.ErasureExecution
import ai.guard.server.models.ErasureExecutionInput
import ai.guard.server.models.GateDecisionsQuery
import ai.guard.server.models.Grievance
import ai.guard.server.models.GrievanceList
import ai.guard.server.models.IvrConsentArtifactInput
import ai.guard.server.models.IvrConsentArtifactResult
import ai.guard.server.models.LinkAnonymousConsentResult
import ai.guard.server.models.Nomination
import ai.guard.server.models.NominationInput
import ai.guard.server.models.NominationRevocation
import ai.guard.server.models.Notice
import ai.guard.server.models.NoticeList
import ai.guard.server.models.OfflineCaptureBatch
import ai.guard.server.models.OfflineCaptureSession
import ai.guard.server.models.OfflineCaptureSyncResult
import ai.guard.server.models.OfflineConsentLink
import ai.guard.server.models.OrgSummary
import ai.guard.server.models.PageQuery
import ai.guard.server.models.PosConsentRequest
import ai.guard.server.models.PosConsentRequestInput
import ai.guard.server.models.ConsentGateBypassAlert
import ai.guard.server.models.ConsentGateDecision
import ai.guard.server.models.RecordConsentInput
import ai.guard.server.models.WithdrawalByTokenResult
import kotlinx.serialization.DeserializationStrategy
import kotlinx.serialization.SerializationException
import kotlinx.serialization.builtins.nullable
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import java.io.IOException
import java.net.SocketTimeoutException
import java.net.URI
import java.net.http.HttpTimeoutException
import java.time.Clock
import java.time.Duration
import java.util.TreeMap
import java.util.UUID
import java.util.concurrent.CompletableFuture
import java.util.concurrent.Executor
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors
import java.util.concurrent.ThreadLocalRandom
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicReference
import java.util.function.DoubleSupplier
import java.util.function.Function

/** How retries wait. Injected by tests to record delays instead of sleeping. */
public fun interface Sleeper {
    /** Waits [duration]; throws [InterruptedException] promptly when the thread is interrupted. */
    @Throws(InterruptedException::class)
    public fun sleep(duration: Duration)

    public companion object {
        /** `Thread.sleep`. */
        @JvmField
        public val SYSTEM: Sleeper = Sleeper { duration -> Thread.sleep(duration.toMillis(), (duration.toNanos() % 1_000_000).toInt()) }
    }
}

/**
 * A Guard client for a fiduciary's backend: typed methods over the public, principal and service
 * routes of `/api/v1` (and `/cm/v1`), each with an optional trailing [RequestOptions].
 *
 * ```kotlin
 * val guard = GuardClient.builder().baseUrl("https://guard.example.com").apiKey(System.getenv("GUARD_API_KEY")).build()
 * val token = guard.brokerToken("user-42")      // kept for principal calls, and handed to your app
 * val dsr = guard.createDsrRequest(CreateDsrRequestInput(orgId, DsrTypes.ERASURE))
 * ```
 *
 * Calls block the calling thread; [async] runs any of them on an executor and returns a cancellable
 * [CompletableFuture]. Interrupting a blocked caller, or cancelling that future, stops the call with
 * [GuardAbortError]. The client is thread-safe; build one per deployment and share it. Its
 * configuration is immutable ([toBuilder] derives another); the one mutable part is the principal
 * access token that [brokerToken] and [setAccessToken] store.
 */
public class GuardClient private constructor(builder: Builder) : AutoCloseable {
    /** Where Guard is served, without a trailing `/`. */
    public val baseUrl: String = builder.checkedBaseUrl()

    /** Per attempt, unless a call's [RequestOptions] says otherwise. */
    public val timeout: Duration = builder.timeout

    /** Retries after the first attempt, unless a call's [RequestOptions] says otherwise. */
    public val maxRetries: Int = builder.maxRetries

    private val apiKey: String? = builder.apiKey
    private val accessToken = AtomicReference<String?>(builder.accessToken)
    private val defaultHeaders: Map<String, String> = TreeMap<String, String>(String.CASE_INSENSITIVE_ORDER).apply {
        putAll(builder.headers)
    }
    private val transport: HttpTransport = builder.transport ?: JdkHttpTransport()
    private val ownsTransport: Boolean = builder.transport == null
    private val clock: Clock = builder.clock
    private val sleeper: Sleeper = builder.sleeper
    private val random: DoubleSupplier = builder.random
    private val executor: Executor? = builder.executor
    private val ownExecutor = lazy { newDaemonPool() }
    private val builderSnapshot: Builder = builder.copy()

    /** A builder holding this client's configuration (and its current access token). */
    public fun toBuilder(): Builder = builderSnapshot.copy().also { it.accessToken = accessToken.get() }

    /** Uses [token] for principal calls from now on (after re-brokering, or from your app's session); null forgets it. */
    public fun setAccessToken(token: String?) {
        accessToken.set(token?.takeIf { it.isNotEmpty() })
    }

    // ----- public (no credential) ---------------------------------------------------------------

    /** An organisation by its short name (`GET /api/v1/org/{slug}`). */
    @JvmOverloads
    public fun getOrganization(slug: String, options: RequestOptions = RequestOptions.NONE): OrgSummary =
        request(Op.get("/api/v1/org/${segment(slug)}", Credential.NONE), OrgSummary.serializer(), options)

    /** The organisation's published notices, a page at a time (`nextCursor`; see [iterateNotices]). */
    @JvmOverloads
    public fun getNotices(orgId: String, page: PageQuery = PageQuery.FIRST, options: RequestOptions = RequestOptions.NONE): NoticeList =
        request(Op.get("/api/v1/org/${segment(orgId)}/notices", Credential.NONE, page.params()), NoticeList.serializer(), options)

    /** Contract 1.6.0's form: the first page. */
    public fun getNotices(orgId: String, options: RequestOptions): NoticeList = getNotices(orgId, PageQuery.FIRST, options)

    /** Every published notice, fetching page after page as the iteration reaches it. */
    @JvmOverloads
    public fun iterateNotices(orgId: String, page: PageQuery = PageQuery.FIRST, options: RequestOptions = RequestOptions.NONE): Iterable<Notice> =
        pages(page) { getNotices(orgId, it, options).let { list -> list.notices to list.nextCursor } }

    /** One published notice. */
    @JvmOverloads
    public fun getNotice(noticeId: String, options: RequestOptions = RequestOptions.NONE): Notice =
        request(Op.get("/api/v1/notices/${segment(noticeId)}", Credential.NONE), Notice.serializer(), options)

    /** Banner configuration for a web domain, a native app, or (neither) the organisation default. */
    @JvmOverloads
    public fun getBannerConfig(
        orgId: String,
        query: BannerConfigQuery = BannerConfigQuery.ORGANIZATION_DEFAULT,
        options: RequestOptions = RequestOptions.NONE,
    ): BannerConfig = request(
        Op.get(
            "/api/v1/org/${segment(orgId)}/banner-config",
            Credential.NONE,
            listOf("domain" to query.domain, "appId" to query.appId),
        ),
        BannerConfig.serializer(),
        options,
    )

    /** Records a guest's consent under a client-generated `anonymousId`; link it after sign-in. A create call. */
    @JvmOverloads
    public fun giveAnonymousConsent(input: AnonymousConsentInput, options: RequestOptions = RequestOptions.NONE): AnonymousConsent =
        request(
            Op.post("/api/v1/consents/anonymous", Credential.NONE, GuardJson.encodeToJsonElement(AnonymousConsentInput.serializer(), input), create = true),
            AnonymousConsent.serializer(),
            options,
        )

    /**
     * Withdraws every consent an offline withdrawal token stands for (printed on a slip or read out
     * after an offline, QR, POS or IVR consent; DPDP s.6(4)). No credential: the token is the proof.
     * Idempotent (a repeat lists them under `alreadyWithdrawn`), so retried.
     */
    @JvmOverloads
    public fun withdrawConsentByToken(withdrawalToken: String, options: RequestOptions = RequestOptions.NONE): WithdrawalByTokenResult =
        request(
            Op.post("/api/v1/offline/withdrawals", Credential.NONE, body("withdrawalToken", withdrawalToken), naturallyIdempotent = true),
            WithdrawalByTokenResult.serializer(),
            options,
        )

    // ----- service API key ----------------------------------------------------------------------

    /**
     * Mints a short-lived access token for your user [externalId] and keeps it for this client's
     * principal calls. Hand `accessToken` to your app; broker again when it expires. Never retried
     * (it takes no idempotency key, and the token is a secret).
     */
    @JvmOverloads
    public fun brokerToken(externalId: String, options: RequestOptions = RequestOptions.NONE): BrokeredToken =
        brokerToken(externalId, null, options)

    /**
     * [brokerToken], also storing the user's [email] (contract 2.10.0), by which [recordConsent] and
     * [getConsentStatus] find them: `brokerToken("user-42", email = "asha@example.com")`. A null
     * [email] is left out of the request (the stored address stays as it is); naming an address
     * another principal of the organisation holds moves it to this one.
     */
    @JvmOverloads
    public fun brokerToken(externalId: String, email: String?, options: RequestOptions = RequestOptions.NONE): BrokeredToken {
        val body = buildJsonObject {
            put("externalId", JsonPrimitive(externalId))
            if (email != null) put("email", JsonPrimitive(email))
        }
        val token = request(
            Op.post("/api/v1/auth/broker-token", Credential.API_KEY, body),
            BrokeredToken.serializer(),
            options,
        )
        accessToken.set(token.accessToken)
        return token
    }

    /** Records consent for a known principal, found by email (`POST /cm/v1/consent`). A create call. */
    @JvmOverloads
    public fun recordConsent(input: RecordConsentInput, options: RequestOptions = RequestOptions.NONE): ConsentRecord =
        request(
            Op.post("/cm/v1/consent", Credential.API_KEY, GuardJson.encodeToJsonElement(RecordConsentInput.serializer(), input), create = true),
            ConsentRecord.serializer(),
            options,
        )

    @JvmOverloads
    public fun getConsent(consentId: String, options: RequestOptions = RequestOptions.NONE): ConsentRecord =
        request(Op.get("/cm/v1/consent/${segment(consentId)}", Credential.API_KEY), ConsentRecord.serializer(), options)

    /** Withdraws a consent. Never retried: a repeat after a lost response would answer `409 CONFLICT`. */
    @JvmOverloads
    public fun withdrawConsent(consentId: String, options: RequestOptions = RequestOptions.NONE): ConsentRecord =
        request(Op("DELETE", "/cm/v1/consent/${segment(consentId)}", Credential.API_KEY), ConsentRecord.serializer(), options)

    /** Every consent of one principal, found by email or by your external id. */
    @JvmOverloads
    public fun getConsentStatus(query: ConsentStatusQuery, options: RequestOptions = RequestOptions.NONE): ConsentStatus =
        request(
            Op.get("/api/v1/consent-status", Credential.API_KEY, listOf("email" to query.email, "externalId" to query.externalId)),
            ConsentStatus.serializer(),
            options,
        )

    /** Consent Gate: ask before processing that depends on a consent; `deny` means stop. */
    @JvmOverloads
    public fun verifyConsent(consentId: String, options: RequestOptions = RequestOptions.NONE): ConsentGateVerdict =
        request(
            Op.post("/api/v1/consent/verify", Credential.API_KEY, body("consentId", consentId), naturallyIdempotent = true),
            ConsentGateVerdict.serializer(),
            options,
        )

    /** The gate's decision log, newest first (server default 50, at most 200), a page at a time. */
    @JvmOverloads
    public fun listGateDecisions(
        query: GateDecisionsQuery = GateDecisionsQuery.DEFAULT,
        options: RequestOptions = RequestOptions.NONE,
    ): ConsentGateDecisionList = request(
        Op.get("/api/v1/consent/gate/decisions", Credential.API_KEY, PageQuery(query.limit, query.cursor).params()),
        ConsentGateDecisionList.serializer(),
        options,
    )

    /** Every logged decision, newest first, fetching page after page as the iteration reaches it. */
    @JvmOverloads
    public fun iterateGateDecisions(
        query: GateDecisionsQuery = GateDecisionsQuery.DEFAULT,
        options: RequestOptions = RequestOptions.NONE,
    ): Iterable<ConsentGateDecision> = pages(PageQuery(query.limit, query.cursor)) {
        listGateDecisions(GateDecisionsQuery(it.limit, it.cursor), options).let { list -> list.decisions to list.nextCursor }
    }

    /** Consents denied repeatedly inside the rolling window (processing that ignores the gate), a page at a time. */
    @JvmOverloads
    public fun listGateAlerts(page: PageQuery = PageQuery.FIRST, options: RequestOptions = RequestOptions.NONE): ConsentGateAlertList =
        request(Op.get("/api/v1/consent/gate/alerts", Credential.API_KEY, page.params()), ConsentGateAlertList.serializer(), options)

    /** Contract 1.6.0's form: the first page. */
    public fun listGateAlerts(options: RequestOptions): ConsentGateAlertList = listGateAlerts(PageQuery.FIRST, options)

    /** Every current alert, fetching page after page as the iteration reaches it. */
    @JvmOverloads
    public fun iterateGateAlerts(page: PageQuery = PageQuery.FIRST, options: RequestOptions = RequestOptions.NONE): Iterable<ConsentGateBypassAlert> =
        pages(page) { listGateAlerts(it, options).let { list -> list.alerts to list.nextCursor } }

    // ----- offline and assisted capture (service API key) ----------------------------------------

    /** Mints a QR consent link for a published notice; render `/offline-consent/{token}` as a QR code. A create call. */
    @JvmOverloads
    public fun createOfflineConsentLink(input: CreateOfflineConsentLinkInput, options: RequestOptions = RequestOptions.NONE): OfflineConsentLink =
        request(
            Op.post("/api/v1/offline-consent/links", Credential.API_KEY, GuardJson.encodeToJsonElement(CreateOfflineConsentLinkInput.serializer(), input), create = true),
            OfflineConsentLink.serializer(),
            options,
        )

    /**
     * Forwards 1-200 capture sessions exactly as the enrolled devices signed them (for a server
     * fronting a fleet). Partial success is normal: read each result's `status`. Retried like a read:
     * a re-synced `clientSessionId` returns its first result and writes nothing.
     */
    @JvmOverloads
    public fun syncOfflineCaptures(sessions: List<OfflineCaptureSession>, options: RequestOptions = RequestOptions.NONE): OfflineCaptureSyncResult =
        request(
            Op.post("/api/v1/offline/captures", Credential.API_KEY, GuardJson.encodeToJsonElement(OfflineCaptureBatch.serializer(), OfflineCaptureBatch(sessions)), naturallyIdempotent = true),
            OfflineCaptureSyncResult.serializer(),
            options,
        )

    /** Starts a point-of-sale consent request; not a consent until the customer confirms at `/consent/{token}`. A create call. */
    @JvmOverloads
    public fun createPosConsentRequest(input: PosConsentRequestInput, options: RequestOptions = RequestOptions.NONE): PosConsentRequest =
        request(
            Op.post("/api/v1/offline/pos", Credential.API_KEY, GuardJson.encodeToJsonElement(PosConsentRequestInput.serializer(), input), create = true),
            PosConsentRequest.serializer(),
            options,
        )

    /**
     * Stores an IVR consent artefact from a telephony partner: a `dtmfSequence` starting with `1`
     * records a consent, anything else a refusal kept as evidence. A create call; `partnerCallId` also
     * makes a resubmission return the original artefact.
     */
    @JvmOverloads
    public fun recordIvrConsentArtifact(input: IvrConsentArtifactInput, options: RequestOptions = RequestOptions.NONE): IvrConsentArtifactResult =
        request(
            Op.post("/api/v1/offline/ivr", Credential.API_KEY, GuardJson.encodeToJsonElement(IvrConsentArtifactInput.serializer(), input), create = true),
            IvrConsentArtifactResult.serializer(),
            options,
        )

    // ----- registers (service API key, contract 2.15.0) -------------------------------------------

    /**
     * Scheduled erasures whose retention window has elapsed (DPDP s.8(7), r.8), a page at a time: the
     * principal was told at least 48 hours before, and your backend now erases their data.
     */
    @JvmOverloads
    public fun listDueRetentions(page: PageQuery = PageQuery.FIRST, options: RequestOptions = RequestOptions.NONE): DueRetentionList =
        request(Op.get("/api/v1/retention/due", Credential.API_KEY, page.params()), DueRetentionList.serializer(), options)

    /** Every due retention, fetching page after page as the iteration reaches it. */
    @JvmOverloads
    public fun iterateDueRetentions(page: PageQuery = PageQuery.FIRST, options: RequestOptions = RequestOptions.NONE): Iterable<DueRetention> =
        pages(page) { listDueRetentions(it, options).let { list -> list.due to list.nextCursor } }

    /** The breach register (s.8(6)), drills excluded, a page at a time. */
    @JvmOverloads
    public fun listBreaches(page: PageQuery = PageQuery.FIRST, options: RequestOptions = RequestOptions.NONE): BreachList =
        request(Op.get("/api/v1/breaches", Credential.API_KEY, page.params()), BreachList.serializer(), options)

    /** Every breach in the register, fetching page after page as the iteration reaches it. */
    @JvmOverloads
    public fun iterateBreaches(page: PageQuery = PageQuery.FIRST, options: RequestOptions = RequestOptions.NONE): Iterable<Breach> =
        pages(page) { listBreaches(it, options).let { list -> list.breaches to list.nextCursor } }

    /** Active processing activities declared as crossing borders (s.16), archived ones excluded, a page at a time. */
    @JvmOverloads
    public fun listCrossBorderTransfers(page: PageQuery = PageQuery.FIRST, options: RequestOptions = RequestOptions.NONE): CrossBorderTransferList =
        request(Op.get("/api/v1/cross-border/transfers", Credential.API_KEY, page.params()), CrossBorderTransferList.serializer(), options)

    /** Every active cross-border entry, fetching page after page as the iteration reaches it. */
    @JvmOverloads
    public fun iterateCrossBorderTransfers(page: PageQuery = PageQuery.FIRST, options: RequestOptions = RequestOptions.NONE): Iterable<CrossBorderTransfer> =
        pages(page) { listCrossBorderTransfers(it, options).let { list -> list.transfers to list.nextCursor } }

    /**
     * Confirms that your backend erased the data of a due retention (from [listDueRetentions]): on
     * the audit chain and as the `retention.erasure_executed` webhook event. A null `executedAt`
     * means the server's now. Retried like a read: a repeat answers the first confirmation. A
     * cancelled, held or not-yet-due erasure is `409 CONFLICT`; an unknown id `404`.
     */
    @JvmOverloads
    public fun confirmErasureExecuted(
        scheduledErasureId: String,
        input: ErasureExecutionInput = ErasureExecutionInput(),
        options: RequestOptions = RequestOptions.NONE,
    ): ErasureExecution = request(
        Op.post(
            "/api/v1/retention/erasures/${segment(scheduledErasureId)}/executed",
            Credential.API_KEY,
            GuardJson.encodeToJsonElement(ErasureExecutionInput.serializer(), input),
            naturallyIdempotent = true,
        ),
        ErasureExecution.serializer(),
        options,
    )

    /** [confirmErasureExecuted] at the server's now, with per-request options. */
    public fun confirmErasureExecuted(scheduledErasureId: String, options: RequestOptions): ErasureExecution =
        confirmErasureExecuted(scheduledErasureId, ErasureExecutionInput(), options)

    // ----- principal access token ---------------------------------------------------------------

    /** Moves a guest's anonymous consents to the signed-in principal. Idempotent, so retried. */
    @JvmOverloads
    public fun linkAnonymousConsent(anonymousId: String, options: RequestOptions = RequestOptions.NONE): LinkAnonymousConsentResult =
        request(
            Op.post("/api/v1/link-anonymous-consent", Credential.ACCESS_TOKEN, body("anonymousId", anonymousId), naturallyIdempotent = true),
            LinkAnonymousConsentResult.serializer(),
            options,
        )

    /** The principal's own requests, newest first, a page at a time (`nextCursor`; see [iterateDsrRequests]). */
    @JvmOverloads
    public fun listDsrRequests(page: PageQuery = PageQuery.FIRST, options: RequestOptions = RequestOptions.NONE): DsrRequestList =
        request(Op.get("/api/v1/dsr", Credential.ACCESS_TOKEN, page.params()), DsrRequestList.serializer(), options)

    /** Contract 1.6.0's form: the first page. */
    public fun listDsrRequests(options: RequestOptions): DsrRequestList = listDsrRequests(PageQuery.FIRST, options)

    /** Every request of the principal, fetching page after page as the iteration reaches it. */
    @JvmOverloads
    public fun iterateDsrRequests(page: PageQuery = PageQuery.FIRST, options: RequestOptions = RequestOptions.NONE): Iterable<DsrRequest> =
        pages(page) { listDsrRequests(it, options).let { list -> list.requests to list.nextCursor } }

    /** Files a data-subject request. A create call. */
    @JvmOverloads
    public fun createDsrRequest(input: CreateDsrRequestInput, options: RequestOptions = RequestOptions.NONE): DsrRequest =
        request(
            Op.post("/api/v1/dsr", Credential.ACCESS_TOKEN, GuardJson.encodeToJsonElement(CreateDsrRequestInput.serializer(), input), create = true),
            DsrRequest.serializer(),
            options,
        )

    /** Contract 1.6.0's shape: the idempotency key as a bare second argument. */
    public fun createDsrRequest(input: CreateDsrRequestInput, idempotencyKey: String): DsrRequest =
        createDsrRequest(input, RequestOptions.idempotencyKey(idempotencyKey))

    /** The principal's own grievances, newest first, a page at a time (`nextCursor`; see [iterateGrievances]). */
    @JvmOverloads
    public fun listGrievances(page: PageQuery = PageQuery.FIRST, options: RequestOptions = RequestOptions.NONE): GrievanceList =
        request(Op.get("/api/v1/grievances", Credential.ACCESS_TOKEN, page.params()), GrievanceList.serializer(), options)

    /** Contract 1.6.0's form: the first page. */
    public fun listGrievances(options: RequestOptions): GrievanceList = listGrievances(PageQuery.FIRST, options)

    /** Every grievance of the principal, fetching page after page as the iteration reaches it. */
    @JvmOverloads
    public fun iterateGrievances(page: PageQuery = PageQuery.FIRST, options: RequestOptions = RequestOptions.NONE): Iterable<Grievance> =
        pages(page) { listGrievances(it, options).let { list -> list.grievances to list.nextCursor } }

    /** Files a grievance. A create call. */
    @JvmOverloads
    public fun createGrievance(input: CreateGrievanceInput, options: RequestOptions = RequestOptions.NONE): Grievance =
        request(
            Op.post("/api/v1/grievances", Credential.ACCESS_TOKEN, GuardJson.encodeToJsonElement(CreateGrievanceInput.serializer(), input), create = true),
            Grievance.serializer(),
            options,
        )

    /** The active nomination, or null when none is set. */
    @JvmOverloads
    public fun getNomination(options: RequestOptions = RequestOptions.NONE): Nomination? =
        request(Op.get("/api/v1/nomination", Credential.ACCESS_TOKEN), Nomination.serializer().nullable, options)

    /** Sets or replaces the nomination (the same row on every call, so retried). */
    @JvmOverloads
    public fun upsertNomination(input: NominationInput, options: RequestOptions = RequestOptions.NONE): Nomination =
        request(
            Op("PUT", "/api/v1/nomination", Credential.ACCESS_TOKEN, body = GuardJson.encodeToJsonElement(NominationInput.serializer(), input), naturallyIdempotent = true),
            Nomination.serializer(),
            options,
        )

    /** Revokes the nomination; `revoked` is false when none was active. */
    @JvmOverloads
    public fun revokeNomination(options: RequestOptions = RequestOptions.NONE): NominationRevocation =
        request(Op("DELETE", "/api/v1/nomination", Credential.ACCESS_TOKEN, naturallyIdempotent = true), NominationRevocation.serializer(), options)

    // ----- async and lifecycle ------------------------------------------------------------------

    /**
     * Runs [call] on the client's executor (the builder's, or a pool of daemon threads this client
     * owns) and returns its future. `future.cancel(true)` interrupts the call wherever it is —
     * waiting for a response or between retries — and no further attempt is made.
     *
     * ```java
     * CompletableFuture<NoticeList> notices = client.async(c -> c.getNotices(orgId));
     * ```
     */
    public fun <T> async(call: Function<GuardClient, T>): CompletableFuture<T> {
        val future = InterruptingFuture<T>()
        (executor ?: ownExecutor.value).execute { future.run { call.apply(this) } }
        return future
    }

    /** Stops the executor this client owns (not one passed to the builder) and closes its transport. */
    override fun close() {
        if (ownExecutor.isInitialized()) ownExecutor.value.shutdownNow()
        if (ownsTransport) transport.close()
    }

    // ----- transport ----------------------------------------------------------------------------

    private enum class Credential { NONE, API_KEY, ACCESS_TOKEN }

    private class Op(
        val method: String,
        val path: String,
        val credential: Credential,
        val query: List<Pair<String, String?>> = emptyList(),
        val body: JsonElement? = null,
        /** A create call: it always carries an Idempotency-Key (the caller's, or one minted here). */
        val create: Boolean = false,
        /** A write the contract declares idempotent by its natural key, so a repeat cannot act twice. */
        val naturallyIdempotent: Boolean = false,
    ) {
        companion object {
            fun get(path: String, credential: Credential, query: List<Pair<String, String?>> = emptyList()) =
                Op("GET", path, credential, query)

            fun post(
                path: String,
                credential: Credential,
                body: JsonElement,
                create: Boolean = false,
                naturallyIdempotent: Boolean = false,
            ) = Op("POST", path, credential, body = body, create = create, naturallyIdempotent = naturallyIdempotent)
        }
    }

    private fun body(name: String, value: String): JsonObject = buildJsonObject { put(name, JsonPrimitive(value)) }

    private fun <T> request(op: Op, deserializer: DeserializationStrategy<T>, options: RequestOptions): T {
        val secret = when (op.credential) {
            Credential.NONE -> null
            Credential.API_KEY -> apiKey ?: throw GuardMissingCredentialError(GuardMissingCredentialError.CREDENTIAL_API_KEY)
            Credential.ACCESS_TOKEN -> accessToken.get()
                ?: throw GuardMissingCredentialError(GuardMissingCredentialError.CREDENTIAL_ACCESS_TOKEN)
        }
        val headers = TreeMap<String, String>(String.CASE_INSENSITIVE_ORDER)
        headers.putAll(defaultHeaders)
        headers.putAll(options.headers)
        headers["Accept"] = "application/json"
        headers["X-Guard-SDK"] = "$SDK_PACKAGE/$SDK_VERSION"
        if (secret != null) headers["Authorization"] = "Bearer $secret"
        if (op.body != null) headers["Content-Type"] = "application/json" else headers.remove("Content-Type")
        // One key per logical call, minted before the first attempt, so every retry replays it.
        val key = options.idempotencyKey ?: if (op.create) UUID.randomUUID().toString() else null
        if (key != null) headers["Idempotency-Key"] = key

        val safeToRepeat = op.method == "GET" || op.naturallyIdempotent || headers.containsKey("Idempotency-Key")
        val uri = URI.create(baseUrl + op.path + queryString(op.query))
        val bytes = op.body?.let { GuardJson.encodeToString(JsonElement.serializer(), it).toByteArray(Charsets.UTF_8) }
        val response = send(
            op.method,
            uri,
            headers,
            bytes,
            timeout = options.timeout ?: timeout,
            maxRetries = options.maxRetries ?: maxRetries,
            safeToRepeat = safeToRepeat,
        )
        return decodeSuccess(response, deserializer)
    }

    /** Attempts until a 2xx or until [RetryPolicy.decide] says stop; returns the 2xx or throws the last failure. */
    private fun send(
        method: String,
        uri: URI,
        headers: Map<String, String>,
        body: ByteArray?,
        timeout: Duration,
        maxRetries: Int,
        safeToRepeat: Boolean,
    ): TransportResponse {
        var retriesSoFar = 0
        while (true) {
            if (Thread.currentThread().isInterrupted) throw aborted(null)
            val attemptHeaders = LinkedHashMap(headers)
            attemptHeaders[RetryPolicy.RETRY_COUNT_HEADER] = retriesSoFar.toString()
            val request = TransportRequest(method, uri, attemptHeaders, body)
            // The query stays out of messages: it can carry an email address (getConsentStatus).
            val what = "$method ${uri.toString().substringBefore('?')}"

            val (error, failure) = try {
                val response = transport.execute(request, timeout)
                if (response.status in 200..299) return response
                apiError(response) to AttemptFailure.Status(response.status, response.header("retry-after"))
            } catch (e: InterruptedException) {
                throw aborted(e)
            } catch (e: IOException) {
                if (e is HttpTimeoutException || e is SocketTimeoutException) {
                    GuardTimeoutError("$what timed out after ${timeout.toMillis()} ms", e) to AttemptFailure.Timeout
                } else {
                    GuardConnectionError("$what failed: ${e.message ?: e.javaClass.simpleName}", e) to
                        AttemptFailure.Connection
                }
            }
            val decision = RetryPolicy.decide(
                failure,
                retriesSoFar,
                maxRetries,
                safeToRepeat,
                aborted = Thread.currentThread().isInterrupted,
                now = clock.instant(),
                random = random.asDouble,
            )
            if (!decision.retry) {
                if (Thread.currentThread().isInterrupted) throw aborted(error)
                throw error
            }
            try {
                sleeper.sleep(decision.delay)
            } catch (e: InterruptedException) {
                throw aborted(e)
            }
            retriesSoFar++
        }
    }

    private fun aborted(cause: Throwable?): GuardAbortError {
        Thread.currentThread().interrupt() // keep the caller's interrupt visible to it
        return GuardAbortError("The call was interrupted", cause)
    }

    private fun <T> decodeSuccess(response: TransportResponse, deserializer: DeserializationStrategy<T>): T {
        val text = String(response.body, Charsets.UTF_8)
        if (text.isBlank()) {
            if (!deserializer.descriptor.isNullable) throw notGuard(response, "is empty")
            @Suppress("UNCHECKED_CAST")
            return null as T
        }
        return try {
            GuardJson.decodeFromString(deserializer, text)
        } catch (e: IllegalArgumentException) { // SerializationException is one
            throw notGuard(response, "is not the JSON the contract describes: ${e.message?.lineSequence()?.firstOrNull()}")
        }
    }

    /** A 2xx that does not parse did not come from Guard (a captive portal, a misrouted proxy). */
    private fun notGuard(response: TransportResponse, what: String): GuardApiError = GuardApiError(
        status = response.status,
        code = GuardErrorCodes.INTERNAL_ERROR,
        message = "The ${response.status} response body $what",
        requestId = response.header("x-request-id"),
        headers = response.headers,
    )

    public class Builder internal constructor() {
        internal var baseUrl: String? = null
        internal var apiKey: String? = null
        internal var accessToken: String? = null
        internal var timeout: Duration = RetryPolicy.DEFAULT_TIMEOUT
        internal var maxRetries: Int = RetryPolicy.DEFAULT_MAX_RETRIES
        internal val headers: MutableMap<String, String> = TreeMap(String.CASE_INSENSITIVE_ORDER)
        internal var transport: HttpTransport? = null
        internal var clock: Clock = Clock.systemUTC()
        internal var sleeper: Sleeper = Sleeper.SYSTEM
        internal var random: DoubleSupplier = DoubleSupplier { ThreadLocalRandom.current().nextDouble() }
        internal var executor: Executor? = null

        /** Where Guard is served, e.g. `https://guard.example.com` (trailing `/` ignored). Required. */
        public fun baseUrl(baseUrl: String): Builder = apply { this.baseUrl = baseUrl.trimEnd('/') }

        /** The service API key (`gk_live_…`): server-side only, never in an app. */
        public fun apiKey(apiKey: String?): Builder = apply { this.apiKey = apiKey?.takeIf { it.isNotEmpty() } }

        /** A principal access token, for principal calls without brokering first. */
        public fun accessToken(accessToken: String?): Builder =
            apply { this.accessToken = accessToken?.takeIf { it.isNotEmpty() } }

        /** Per attempt; default 30 s. */
        public fun timeout(timeout: Duration): Builder = apply {
            require(!timeout.isNegative && !timeout.isZero) { "timeout must be positive, got $timeout" }
            this.timeout = timeout
        }

        public fun timeoutMs(timeoutMs: Long): Builder = timeout(Duration.ofMillis(timeoutMs))

        /** Retries after the first attempt; default 2, 0 disables retrying. */
        public fun maxRetries(maxRetries: Int): Builder = apply {
            require(maxRetries >= 0) { "maxRetries must be >= 0, got $maxRetries" }
            this.maxRetries = maxRetries
        }

        /** A header sent on every request. The SDK's own headers (`Authorization`, `X-Guard-SDK`, `X-Guard-Retry-Count`) are refused. */
        public fun header(name: String, value: String): Builder = apply {
            checkHeaderName(name)
            headers[name] = value
        }

        /** Advanced: how requests are sent. Default [JdkHttpTransport]; a given transport is not closed by [close]. */
        public fun transport(transport: HttpTransport): Builder = apply { this.transport = transport }

        /** Advanced: the clock that reads an HTTP-date `Retry-After`. */
        public fun clock(clock: Clock): Builder = apply { this.clock = clock }

        /** Advanced: how retries wait (tests inject one that records instead of sleeping). */
        public fun sleeper(sleeper: Sleeper): Builder = apply { this.sleeper = sleeper }

        /** Advanced: the jitter source, values in [0, 1). */
        public fun random(random: DoubleSupplier): Builder = apply { this.random = random }

        /** Where [GuardClient.async] runs calls. Default: daemon threads owned (and shut down) by the client. */
        public fun executor(executor: Executor): Builder = apply { this.executor = executor }

        /** Checks the configuration before anything is allocated, so a bad one leaves no HTTP client behind. */
        public fun build(): GuardClient {
            checkedBaseUrl()
            return GuardClient(this.copy())
        }

        internal fun checkedBaseUrl(): String {
            val url = baseUrl ?: throw IllegalArgumentException(
                "baseUrl is required: GuardClient.builder().baseUrl(\"https://guard.example.com\")",
            )
            val uri = try {
                URI(url)
            } catch (e: java.net.URISyntaxException) {
                throw IllegalArgumentException("baseUrl is not a URL: $url", e)
            }
            require(uri.scheme?.lowercase() in setOf("http", "https") && !uri.host.isNullOrEmpty()) {
                "baseUrl must be an http(s) URL, e.g. https://guard.example.com (got $url)"
            }
            require(uri.rawQuery == null && uri.rawFragment == null) { "baseUrl must not have a query or fragment" }
            return url
        }

        internal fun copy(): Builder = Builder().also { b ->
            b.baseUrl = baseUrl
            b.apiKey = apiKey
            b.accessToken = accessToken
            b.timeout = timeout
            b.maxRetries = maxRetries
            b.headers.putAll(headers)
            b.transport = transport
            b.clock = clock
            b.sleeper = sleeper
            b.random = random
            b.executor = executor
        }
    }

    public companion object {
        @JvmStatic
        public fun builder(): Builder = Builder()

        private val poolCount = AtomicInteger()

        private fun newDaemonPool(): ExecutorService {
            val pool = poolCount.incrementAndGet()
            val thread = AtomicInteger()
            return Executors.newCachedThreadPool { task ->
                Thread(task, "guard-client-$pool-${thread.incrementAndGet()}").apply { isDaemon = true }
            }
        }
    }
}

private fun PageQuery.params(): List<Pair<String, String?>> = listOf("limit" to limit?.toString(), "cursor" to cursor)

/**
 * A paged list as one lazy Iterable: each iterator starts at [first] and fetches the next page (one
 * ordinary call, with its own retries) only when the items of the previous one are used up.
 */
private fun <T> pages(first: PageQuery, fetch: (PageQuery) -> Pair<List<T>, String?>): Iterable<T> = Iterable {
    iterator {
        var cursor = first.cursor
        do {
            val (items, next) = fetch(PageQuery(first.limit, cursor))
            yieldAll(items)
            cursor = next
        } while (cursor != null)
    }
}

private fun queryString(params: List<Pair<String, String?>>): String {
    val present = params.filter { !it.second.isNullOrEmpty() }
    if (present.isEmpty()) return ""
    return present.joinToString("&", prefix = "?") { (name, value) -> "${percentEncode(name)}=${percentEncode(value!!)}" }
}

private fun segment(value: String): String = percentEncode(value)

/** RFC 3986 percent-encoding of everything but the unreserved characters (like encodeURIComponent, minus `!'()*`). */
@JvmSynthetic
internal fun percentEncode(value: String): String {
    val out = StringBuilder(value.length)
    for (byte in value.toByteArray(Charsets.UTF_8)) {
        val c = byte.toInt() and 0xff
        if (c in 'a'.code..'z'.code || c in 'A'.code..'Z'.code || c in '0'.code..'9'.code || c == '-'.code || c == '.'.code || c == '_'.code || c == '~'.code) {
            out.append(c.toChar())
        } else {
            out.append('%').append("0123456789ABCDEF"[c shr 4]).append("0123456789ABCDEF"[c and 0xf])
        }
    }
    return out.toString()
}

/** The GuardApiError for a non-2xx answer (conformance/README.md "Errors"). */
@JvmSynthetic
internal fun apiError(response: TransportResponse): GuardApiError {
    val body = try {
        val text = String(response.body, Charsets.UTF_8)
        if (text.isBlank()) null else GuardJson.parseToJsonElement(text) as? JsonObject
    } catch (_: SerializationException) {
        null // A non-JSON error page (from a proxy, say) still becomes a GuardApiError below.
    }
    fun text(name: String): String? =
        (body?.get(name) as? JsonPrimitive)?.takeIf { it.isString }?.content?.takeIf { it.isNotEmpty() }
    return GuardApiError(
        status = response.status,
        code = text("code") ?: GuardErrorCodes.forStatus(response.status),
        message = text("error") ?: "Request failed with status ${response.status}",
        requestId = text("requestId") ?: response.header("x-request-id"),
        field = text("field"),
        headers = response.headers,
    )
}
