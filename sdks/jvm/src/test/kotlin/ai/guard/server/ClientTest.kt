package ai.guard.server

import ai.guard.server.models.AnonymousConsentInput
import ai.guard.server.models.BannerConfigQuery
import ai.guard.server.models.ConsentStatusQuery
import ai.guard.server.models.CreateDsrRequestInput
import ai.guard.server.models.CreateGrievanceInput
import ai.guard.server.models.DsrTypes
import ai.guard.server.models.GateDecisionsQuery
import ai.guard.server.models.NominationInput
import ai.guard.server.models.RecordConsentInput
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNotEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.net.http.HttpTimeoutException
import java.time.Duration

private const val ORG = "org_9f2c4a7b1d3e"
private const val DSR = """{"requestId":"dsr_0000000001","type":"erasure","status":"pending","dueAt":1,"requestDetails":"x"}"""
private const val TOKEN = """{"accessToken":"tok_abc","expiresAt":1700000900000,"tokenType":"Bearer"}"""
private const val CONSENT =
    """{"@context":"https://guard.test/ctx","consentId":"cns_0000000001","purpose":"Marketing","dataTypes":["email"],"givenAt":1,"withdrawnAt":null,"status":"active"}"""
private val UUID_V4 = Regex("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")

class ClientTest {
    private fun principalClient(transport: FakeTransport, sleeper: RecordingSleeper = RecordingSleeper()) =
        fakeClient(transport, sleeper) { accessToken("tok_principal") }

    // ----- requests on the wire --------------------------------------------------------------

    @Test
    fun `a public GET carries the family's headers and no credential or content type`() {
        val transport = FakeTransport(answer(200, """{"orgId":"$ORG","name":"Acme","slug":"acme health"}"""))
        val org = fakeClient(transport).getOrganization("acme health/ü")
        assertEquals(ORG, org.orgId)
        val request = transport.requests.single()
        assertEquals("GET", request.method)
        assertEquals("https://guard.test/api/v1/org/acme%20health%2F%C3%BC", request.uri.toString())
        assertEquals("application/json", transport.header(0, "accept"))
        assertEquals("ai.guard:server-sdk/$SDK_VERSION", transport.header(0, "x-guard-sdk"))
        assertEquals("0", transport.header(0, "x-guard-retry-count"))
        assertNull(transport.header(0, "authorization"), "public calls send no credential")
        assertNull(transport.header(0, "content-type"))
        assertNull(transport.header(0, "idempotency-key"))
        assertNull(request.body)
        assertEquals(Duration.ofSeconds(30), transport.timeouts.single())
    }

    @Test
    fun `service, principal and public credentials each go where they belong`() {
        val transport = FakeTransport(answer(201, TOKEN), answer(200, """{"requests":[]}"""), answer(200, CONSENT))
        val client = fakeClient(transport)
        val token = client.brokerToken("user-42")
        assertEquals("Bearer gk_test_key", transport.header(0, "authorization"))
        assertEquals("""{"externalId":"user-42"}""", transport.body(0))
        assertEquals("application/json", transport.header(0, "content-type"))
        assertFalse(token.toString().contains("tok_abc"), "the token stays out of toString")
        client.listDsrRequests()
        assertEquals("Bearer tok_abc", transport.header(1, "authorization"), "brokerToken stored the token")
        client.getConsent("cns_0000000001")
        assertEquals("Bearer gk_test_key", transport.header(2, "authorization"))
    }

    @Test
    fun `brokerToken sends the email only when given`() {
        val transport = FakeTransport(answer(201, TOKEN), answer(201, TOKEN), answer(201, TOKEN), answer(201, TOKEN))
        val client = fakeClient(transport)
        client.brokerToken("user-42", email = "asha@example.com")
        client.brokerToken("user-43", "ravi@example.com", RequestOptions.builder().header("X-Trace", "t1").build())
        client.brokerToken("user-44", email = null)
        client.brokerToken("user-45", RequestOptions.NONE)
        assertEquals("""{"externalId":"user-42","email":"asha@example.com"}""", transport.body(0))
        assertEquals("""{"externalId":"user-43","email":"ravi@example.com"}""", transport.body(1))
        assertEquals("t1", transport.header(1, "x-trace"))
        assertEquals("""{"externalId":"user-44"}""", transport.body(2))
        assertEquals("""{"externalId":"user-45"}""", transport.body(3))
    }

    @Test
    fun `missing credentials fail before any network call`() {
        val transport = FakeTransport()
        val noKey = GuardClient.builder().baseUrl("https://guard.test").transport(transport).build()
        val e1 = assertThrows(GuardMissingCredentialError::class.java) { noKey.brokerToken("u") }
        assertEquals("apiKey", e1.credential)
        assertThrows(GuardMissingCredentialError::class.java) { noKey.verifyConsent("cns_0000000001") }
        assertThrows(GuardMissingCredentialError::class.java) { noKey.listGateDecisions() }
        val e2 = assertThrows(GuardMissingCredentialError::class.java) { noKey.listDsrRequests() }
        assertEquals("accessToken", e2.credential)
        assertThrows(GuardMissingCredentialError::class.java) { noKey.createDsrRequest(CreateDsrRequestInput(ORG, DsrTypes.ERASURE)) }
        assertThrows(GuardMissingCredentialError::class.java) { noKey.getNomination() }
        assertTrue(transport.requests.isEmpty(), "nothing was sent")
        noKey.setAccessToken("tok_x")
        transport.enqueue(answer(200, "null"))
        assertNull(noKey.getNomination())
        noKey.setAccessToken(null)
        assertThrows(GuardMissingCredentialError::class.java) { noKey.getNomination() }
    }

    @Test
    fun `query parameters that are absent or empty are not sent`() {
        val banner = """{"configVersion":3,"bannerSettings":{"theme":"dark"}}"""
        val transport = FakeTransport(answer(200, banner), answer(200, banner), answer(200, banner), answer(200, """{"decisions":[]}"""), answer(200, """{"decisions":[]}"""))
        val client = fakeClient(transport)
        val config = client.getBannerConfig(ORG)
        assertEquals(3, config.configVersion)
        assertEquals("\"dark\"", config.bannerSettings?.get("theme").toString())
        client.getBannerConfig(ORG, BannerConfigQuery.domain("shop.example.in"))
        client.getBannerConfig(ORG, BannerConfigQuery(domain = "", appId = "in.example.app"))
        client.listGateDecisions()
        client.listGateDecisions(GateDecisionsQuery(limit = 2))
        assertEquals(
            listOf(
                "/api/v1/org/$ORG/banner-config",
                "/api/v1/org/$ORG/banner-config?domain=shop.example.in",
                "/api/v1/org/$ORG/banner-config?appId=in.example.app",
                "/api/v1/consent/gate/decisions",
                "/api/v1/consent/gate/decisions?limit=2",
            ),
            transport.requests.map { it.uri.rawPath + (it.uri.rawQuery?.let { q -> "?$q" } ?: "") },
        )
        val status = FakeTransport(answer(200, """{"principal":{"principalId":"dp_0000000001","externalId":null,"email":"a+b@example.com"},"consents":[]}"""))
        fakeClient(status).getConsentStatus(ConsentStatusQuery.byEmail("a+b@example.com"))
        assertEquals("email=a%2Bb%40example.com", status.requests.single().uri.rawQuery)
    }

    @Test
    fun `per-request options override the client's and headers merge`() {
        val transport = FakeTransport(answer(200, """{"notices":[]}"""))
        val client = fakeClient(transport) { header("X-Tenant", "client").header("X-Trace", "t1").timeoutMs(5_000) }
        client.getNotices(ORG, RequestOptions.builder().header("x-tenant", "call").timeout(Duration.ofMillis(300)).build())
        assertEquals("call", transport.header(0, "X-Tenant"))
        assertEquals("t1", transport.header(0, "X-Trace"))
        assertEquals(Duration.ofMillis(300), transport.timeouts.single())
        assertThrows(IllegalArgumentException::class.java) { RequestOptions.builder().header("Authorization", "Bearer x") }
        assertThrows(IllegalArgumentException::class.java) { GuardClient.builder().header("x-guard-retry-count", "9") }
        assertThrows(IllegalArgumentException::class.java) { RequestOptions.builder().maxRetries(-1) }
        assertThrows(IllegalArgumentException::class.java) { RequestOptions.builder().timeoutMs(0) }
    }

    @Test
    fun `the builder refuses what cannot work`() {
        assertThrows(IllegalArgumentException::class.java) { GuardClient.builder().build() }
        assertThrows(IllegalArgumentException::class.java) { GuardClient.builder().baseUrl("guard.example.com").build() }
        assertThrows(IllegalArgumentException::class.java) { GuardClient.builder().baseUrl("ftp://guard.example.com").build() }
        assertThrows(IllegalArgumentException::class.java) { GuardClient.builder().baseUrl("https://g.example.com/?x=1").build() }
        val client = GuardClient.builder().baseUrl("https://guard.example.com/base//").build()
        assertEquals("https://guard.example.com/base", client.baseUrl)
        val derived = client.toBuilder().maxRetries(0).build()
        assertEquals(0, derived.maxRetries)
        assertEquals(2, client.maxRetries, "the original is unchanged")
        client.close()
        derived.close()
    }

    // ----- idempotency -----------------------------------------------------------------------

    @Test
    fun `a create mints one UUIDv4 key per logical call and reuses it on every retry`() {
        val transport = FakeTransport(answer(503), connectionRefused(), answer(201, DSR), answer(201, DSR))
        val client = principalClient(transport)
        client.createDsrRequest(CreateDsrRequestInput(ORG, DsrTypes.ERASURE, "x"))
        val keys = (0..2).map { transport.header(it, "idempotency-key")!! }
        assertTrue(UUID_V4.matches(keys[0]), keys[0])
        assertEquals(1, keys.toSet().size, "one key across the attempts: $keys")
        assertEquals(listOf("0", "1", "2"), (0..2).map { transport.header(it, "x-guard-retry-count") })
        assertEquals("""{"organizationId":"$ORG","type":"erasure","details":"x"}""", transport.body(0))
        client.createDsrRequest(CreateDsrRequestInput(ORG, DsrTypes.ERASURE))
        assertNotEquals(keys[0], transport.header(3, "idempotency-key"), "the next logical call gets its own key")
        assertEquals("""{"organizationId":"$ORG","type":"erasure"}""", transport.body(3), "an absent optional is not sent")
    }

    @Test
    fun `a caller's key is sent as given, also as the bare second argument of createDsrRequest`() {
        val transport = FakeTransport(answer(201, DSR), answer(201, DSR), answer(201, CONSENT), answer(201, """{"consentId":"cns_1","purpose":"p","dataTypes":["e"],"givenAt":1}"""), answer(201, """{"grievanceId":"grv_1","subject":"s","description":"d","status":"open","dueAt":2}"""))
        val client = principalClient(transport)
        client.createDsrRequest(CreateDsrRequestInput(ORG, DsrTypes.SUMMARY), "key-1")
        client.createDsrRequest(CreateDsrRequestInput(ORG, DsrTypes.SUMMARY), RequestOptions.idempotencyKey("key-2"))
        client.recordConsent(RecordConsentInput("a@example.com", "ntc_0000000001", "Marketing", listOf("email")), RequestOptions.idempotencyKey("key-3"))
        client.giveAnonymousConsent(AnonymousConsentInput(ORG, "ntc_0000000001", "Marketing", listOf("email"), "anon-1"), RequestOptions.idempotencyKey("key-4"))
        client.createGrievance(CreateGrievanceInput(ORG, "s", "d"), RequestOptions.idempotencyKey("key-5"))
        assertEquals((1..5).map { "key-$it" }, transport.requests.indices.map { transport.header(it, "idempotency-key") })
        assertNull(transport.header(2, "authorization")?.takeIf { !it.endsWith("gk_test_key") }, "recordConsent uses the API key")
        assertNull(transport.header(3, "authorization"), "anonymous consent is public")
    }

    // ----- retries ---------------------------------------------------------------------------

    @Test
    fun `a GET retries 503s with backoff and honours Retry-After exactly`() {
        val sleeper = RecordingSleeper()
        val transport = FakeTransport(
            answer(503),
            answer(503, "", "Retry-After" to "1.25"),
            answer(429, "", "Retry-After" to "Mon, 31 Aug 2026 10:00:02 GMT"),
            answer(200, """{"orgId":"$ORG","name":"Acme","slug":"acme"}"""),
        )
        fakeClient(transport, sleeper, random = 0.5) { maxRetries(3) }.getOrganization("acme")
        assertEquals(listOf(Duration.ofNanos(437_500_000), Duration.ofMillis(1250), Duration.ofSeconds(2)), sleeper.delays)
        assertEquals(listOf("0", "1", "2", "3"), transport.requests.indices.map { transport.header(it, "x-guard-retry-count") })
    }

    @Test
    fun `retries stop at maxRetries, per client and per request, and the last error surfaces`() {
        val sleeper = RecordingSleeper()
        val transport = FakeTransport(answer(503, """{"code":"UNAVAILABLE","error":"one"}"""), answer(502), answer(500, """{"code":"INTERNAL_ERROR","error":"three"}"""))
        val error = assertThrows(GuardApiError::class.java) { fakeClient(transport, sleeper).getNotice("ntc_0000000001") }
        assertEquals(500, error.status)
        assertEquals("three", error.message)
        assertEquals(3, transport.requests.size)
        assertEquals(2, sleeper.delays.size)

        val once = FakeTransport(answer(503))
        assertThrows(GuardApiError::class.java) { fakeClient(once) { maxRetries(0) }.getNotice("ntc_0000000001") }
        assertEquals(1, once.requests.size)

        val overridden = FakeTransport(answer(503), answer(200, """{"_id":"ntc_1","organizationId":"$ORG","version":1,"itemized":[],"content":{},"status":"published"}"""))
        val notice = fakeClient(overridden) { maxRetries(0) }.getNotice("ntc_1", RequestOptions.builder().maxRetries(1).build())
        assertEquals("ntc_1", notice.id)
    }

    @Test
    fun `Retry-After above the 60 s cap is not waited for`() {
        val sleeper = RecordingSleeper()
        val transport = FakeTransport(answer(429, """{"code":"RATE_LIMITED","error":"slow down"}""", "Retry-After" to "120"))
        val error = assertThrows(GuardApiError::class.java) { fakeClient(transport, sleeper).getOrganization("acme") }
        assertEquals("RATE_LIMITED", error.code)
        assertEquals(listOf("120"), error.headers["retry-after"])
        assertEquals(1, transport.requests.size)
        assertTrue(sleeper.delays.isEmpty())
    }

    @Test
    fun `writes that are not safe to repeat are tried once, the idempotent ones are retried`() {
        val notSafe = FakeTransport(answer(503), answer(503))
        val client = fakeClient(notSafe)
        assertThrows(GuardApiError::class.java) { client.brokerToken("u") }
        assertThrows(GuardApiError::class.java) { client.withdrawConsent("cns_0000000001") }
        assertEquals(2, notSafe.requests.size)
        assertNull(notSafe.header(0, "idempotency-key"))

        val nomination = """{"nominationId":"nom_1","nomineeName":"A","nomineeContact":"a@example.com","status":"active"}"""
        val safe = FakeTransport(
            connectionRefused(), answer(200, nomination),
            answer(503), answer(200, """{"revoked":true}"""),
            answer(502), answer(200, """{"linkedCount":1,"needsReconsent":[{"noticeId":"ntc_1","purpose":"Marketing"}]}"""),
            answer(504), answer(200, """{"decision":"deny","reason":"consent_withdrawn","consentId":"cns_1"}"""),
        )
        val principal = principalClient(safe)
        assertEquals("A", principal.upsertNomination(NominationInput("A", "a@example.com")).nomineeName)
        assertTrue(principal.revokeNomination().revoked)
        assertEquals("Marketing", principal.linkAnonymousConsent("anon-1").needsReconsent.single().purpose)
        val verification = fakeClient(safe).verifyConsent("cns_1")
        assertFalse(verification.isAllowed)
        assertEquals(listOf("PUT", "PUT", "DELETE", "DELETE", "POST", "POST", "POST", "POST"), safe.requests.map { it.method })
    }

    @Test
    fun `4xx answers are never retried`() {
        for (status in listOf(400, 401, 403, 404, 409, 422)) {
            val transport = FakeTransport(answer(status))
            assertThrows(GuardApiError::class.java) { fakeClient(transport).getOrganization("acme") }
            assertEquals(1, transport.requests.size, "$status")
        }
    }

    @Test
    fun `timeouts and connection failures are distinct errors, both retried when safe`() {
        val timeouts = FakeTransport(Scripted.Fail(HttpTimeoutException("slow")), Scripted.Fail(HttpTimeoutException("slow")))
        val timeout = assertThrows(GuardTimeoutError::class.java) {
            fakeClient(timeouts).getOrganization("acme", RequestOptions.builder().maxRetries(1).timeoutMs(300).build())
        }
        assertTrue(timeout.message!!.contains("300 ms"), timeout.message)
        assertEquals(listOf(Duration.ofMillis(300), Duration.ofMillis(300)), timeouts.timeouts)

        val refused = FakeTransport(connectionRefused(), connectionRefused(), connectionRefused())
        val connection = assertThrows(GuardConnectionError::class.java) { fakeClient(refused).getOrganization("acme") }
        assertTrue(connection.cause is java.io.IOException)
        assertEquals(3, refused.requests.size)
        assertFalse(GuardTimeoutError::class.java.isAssignableFrom(GuardConnectionError::class.java))
        assertFalse(GuardConnectionError::class.java.isAssignableFrom(GuardTimeoutError::class.java))
    }

    // ----- errors ----------------------------------------------------------------------------

    @Test
    fun `error bodies map to status, code, message, request id and field`() {
        fun errorFor(vararg script: Scripted) = assertThrows(GuardApiError::class.java) { fakeClient(FakeTransport(*script)) { maxRetries(0) }.getOrganization("acme") }

        val full = errorFor(answer(400, """{"code":"VALIDATION_ERROR","error":"dataTypes must have 1 item","requestId":"req_body","field":"/dataTypes"}""", "x-request-id" to "req_header"))
        assertEquals(listOf(400, "VALIDATION_ERROR", "dataTypes must have 1 item", "req_body", "/dataTypes"), listOf(full.status, full.code, full.message, full.requestId, full.field))

        val unknown = errorFor(answer(422, """{"code":"SOMETHING_NEWER","error":"future"}""", "X-Request-Id" to "req_h"))
        assertEquals(listOf("SOMETHING_NEWER", "req_h"), listOf(unknown.code, unknown.requestId))

        val html = errorFor(answer(502, "<html>Bad gateway</html>"))
        assertEquals(listOf("UNAVAILABLE", "Request failed with status 502", null), listOf(html.code, html.message, html.requestId))

        val legacy = errorFor(answer(400, """{"error":"legacy message"}"""))
        assertEquals(listOf("VALIDATION_ERROR", "legacy message"), listOf(legacy.code, legacy.message))

        assertEquals("NOT_FOUND", errorFor(answer(404)).code)
        assertEquals("INTERNAL_ERROR", errorFor(answer(500, "[1,2]")).code)
        assertEquals("VALIDATION_ERROR", errorFor(answer(418, """{"code":42,"error":""}""")).code, "a non-string code is not a code")
        assertEquals("Request failed with status 418", errorFor(answer(418, """{"code":42,"error":""}""")).message)
        assertEquals("FORBIDDEN", errorFor(answer(301)).let { GuardErrorCodes.forStatus(403) })
        assertEquals("VALIDATION_ERROR", errorFor(answer(301)).code, "a redirect is not followed; it is an error like any non-2xx")
        mapOf(401 to "UNAUTHORIZED", 409 to "CONFLICT", 413 to "PAYLOAD_TOO_LARGE", 415 to "UNSUPPORTED_MEDIA_TYPE", 426 to "SDK_VERSION_UNSUPPORTED", 429 to "RATE_LIMITED", 503 to "UNAVAILABLE")
            .forEach { (status, code) -> assertEquals(code, GuardErrorCodes.forStatus(status), "$status") }
    }

    @Test
    fun `a 2xx that is not the contract's JSON is an INTERNAL_ERROR, not a crash`() {
        for (body in listOf("<html>captive portal</html>", "", """{"orgId":"x"}""", "[]")) {
            val error = assertThrows(GuardApiError::class.java) { fakeClient(FakeTransport(answer(200, body))).getOrganization("acme") }
            assertEquals("INTERNAL_ERROR", error.code, body)
            assertEquals(200, error.status)
        }
        // Unknown fields are ignored: the contract adds fields in minor releases.
        val org = fakeClient(FakeTransport(answer(200, """{"orgId":"o","name":"n","slug":"s","newField":{"x":1}}"""))).getOrganization("s")
        assertEquals("o", org.orgId)
    }

    // ----- cancellation ----------------------------------------------------------------------

    @Test
    fun `an interrupted caller gets GuardAbortError, keeps its interrupt, and nothing is retried`() {
        val transport = FakeTransport(Scripted.Fail(InterruptedException()), answer(200))
        val error = assertThrows(GuardAbortError::class.java) { fakeClient(transport).getOrganization("acme") }
        assertTrue(Thread.interrupted(), "the interrupt flag is set again (and cleared here)")
        assertTrue(error.cause is InterruptedException)
        assertEquals(1, transport.requests.size)

        Thread.currentThread().interrupt()
        assertThrows(GuardAbortError::class.java) { fakeClient(transport).getOrganization("acme") }
        assertTrue(Thread.interrupted())
        assertEquals(1, transport.requests.size, "an already-interrupted thread sends nothing")
    }

    @Test
    fun `cancelling an async call interrupts its wait between retries and stops further attempts`() {
        val waiting = java.util.concurrent.CountDownLatch(1)
        val interrupted = java.util.concurrent.CountDownLatch(1)
        val sleeper = Sleeper {
            waiting.countDown()
            try {
                Thread.sleep(10_000)
            } catch (e: InterruptedException) {
                interrupted.countDown()
                throw e
            }
        }
        val transport = FakeTransport(answer(503))
        val client = fakeClient(transport, sleeper)
        val future = client.async { it.getOrganization("acme") }
        assertTrue(waiting.await(5, java.util.concurrent.TimeUnit.SECONDS))
        assertTrue(future.cancel(true))
        assertTrue(interrupted.await(5, java.util.concurrent.TimeUnit.SECONDS), "the sleeping worker was interrupted")
        assertThrows(java.util.concurrent.CancellationException::class.java) { future.join() }
        assertEquals(1, transport.requests.size)
        client.close()
    }

    @Test
    fun `async completes with the result or the call's own exception`() {
        val client = fakeClient(FakeTransport(answer(200, """{"orgId":"o","name":"n","slug":"s"}"""), answer(404)))
        assertEquals("o", client.async { it.getOrganization("s") }.get().orgId)
        val failure = assertThrows(java.util.concurrent.ExecutionException::class.java) { client.async { it.getOrganization("t") }.get() }
        assertTrue(failure.cause is GuardApiError)
        client.close()
    }

    @Test
    fun `close closes the transport the client made, never one it was given`() {
        val given = FakeTransport()
        fakeClient(given).close()
        assertFalse(given.closed)
    }
}

class ClientPrivacyTest {
    @Test
    fun `an error message names the route but not the query, which can carry an email address`() {
        val transport = FakeTransport(connectionRefused())
        val error = assertThrows(GuardConnectionError::class.java) {
            fakeClient(transport) { maxRetries(0) }.getConsentStatus(ConsentStatusQuery.byEmail("asha@example.com"))
        }
        assertEquals("GET https://guard.test/api/v1/consent-status failed: Connection refused", error.message)
        assertTrue(transport.requests.single().uri.rawQuery.contains("asha"))
    }
}
