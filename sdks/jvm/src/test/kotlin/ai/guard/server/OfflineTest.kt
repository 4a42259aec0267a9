package ai.guard.server

import ai.guard.server.models.CreateOfflineConsentLinkInput
import ai.guard.server.models.IvrConsentArtifactInput
import ai.guard.server.models.OfflineCapturePurposeGrant
import ai.guard.server.models.OfflineCaptureSession
import ai.guard.server.models.OfflinePrincipalHandle
import ai.guard.server.models.PosConsentRequestInput
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.jsonObject
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

private val UUID4 = Regex("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
private val LINK = CreateOfflineConsentLinkInput("ntc_0123456789", "Marketing", listOf("email"), "Counter 3")
private val POS = PosConsentRequestInput("ntc_0123456789", "Marketing", listOf("phone"), "+91 98765 43210")
private val IVR = IvrConsentArtifactInput(
    "ntc_0123456789", "call-1", "s3://recordings/call-1.wav", "en", "1", "9f86d081884c7d65", 1_700_000_000_000, "sig", "Marketing", listOf("phone"),
)
private val SESSION = OfflineCaptureSession(
    clientSessionId = "6f1c2f9e-8b1a-4c3d-9e2f-1a2b3c4d5e6f",
    deviceId = "dev_0123456789",
    noticeId = "ntc_0123456789",
    noticeVersion = 1,
    noticeLocale = "en",
    channel = "agent_app",
    capturedAtClient = 1_700_000_000_000,
    deviceSignature = "A".repeat(86) + "==",
    dataTypes = listOf("email"),
    purposeGrants = listOf(OfflineCapturePurposeGrant("Marketing", "Marketing", "non_essential", "opt_in")),
)
private const val RESULTS = """{"results":[{"clientSessionId":"6f1c2f9e-8b1a-4c3d-9e2f-1a2b3c4d5e6f","status":"verified","consentId":"cns_1","withdrawalToken":"wdt_1","consentIds":["cns_1"]}]}"""

/** The offline and assisted capture calls (contract 2.14.0) on a scripted transport. */
class OfflineTest {
    @Test
    fun `each offline call posts its body to its route with the service key`() {
        val transport = FakeTransport(
            answer(201, """{"linkId":"olk_1","token":"t1"}"""),
            answer(200, RESULTS),
            answer(201, """{"requestId":"pos_1","token":"t2","expiresAt":1,"url":"https://guard.test/consent/t2"}"""),
            answer(201, """{"artifactId":"ivr_1","accepted":false,"consentId":null}"""),
        )
        val client = fakeClient(transport)
        assertEquals("t1", client.createOfflineConsentLink(LINK).token)
        val synced = client.syncOfflineCaptures(listOf(SESSION)).results.single()
        assertTrue(synced.isVerified)
        assertEquals(listOf("cns_1"), synced.consentIds)
        assertEquals("https://guard.test/consent/t2", client.createPosConsentRequest(POS).url)
        val refusal = client.recordIvrConsentArtifact(IVR)
        assertEquals(false, refusal.accepted)
        assertNull(refusal.consentId)
        assertEquals(
            listOf("/api/v1/offline-consent/links", "/api/v1/offline/captures", "/api/v1/offline/pos", "/api/v1/offline/ivr"),
            transport.requests.map { it.uri.path },
        )
        transport.requests.indices.forEach { assertEquals("Bearer gk_test_key", transport.header(it, "authorization")) }
        assertEquals(
            """{"noticeId":"ntc_0123456789","purpose":"Marketing","dataTypes":["email"],"label":"Counter 3"}""",
            transport.body(0),
        )
        val sent = Json.parseToJsonElement(transport.body(1)!!).jsonObject
        assertEquals(setOf("sessions"), sent.keys)
        val wire = (sent.getValue("sessions") as kotlinx.serialization.json.JsonArray).single() as JsonObject
        assertEquals(false, "principalHandle" in wire || "linkId" in wire, "absent optionals stay absent, never null")
        assertEquals(false, transport.body(3)!!.contains("transcript"), "the optional transcript is left out")
    }

    @Test
    fun `links, POS and IVR mint one key per call reused on retries, a sync carries none and is retried`() {
        val sleeper = RecordingSleeper()
        val transport = FakeTransport(
            answer(503), connectionRefused(), answer(201, """{"requestId":"pos_1","token":"t","expiresAt":1}"""),
            answer(201, """{"linkId":"l","token":"t"}"""),
            answer(201, """{"artifactId":"a","accepted":true,"consentId":"c"}"""),
            answer(503), answer(200, RESULTS),
        )
        val client = fakeClient(transport, sleeper)
        client.createPosConsentRequest(POS)
        client.createOfflineConsentLink(LINK)
        client.recordIvrConsentArtifact(IVR, RequestOptions.idempotencyKey("ivr-key"))
        client.syncOfflineCaptures(listOf(SESSION))
        val keys = transport.requests.indices.map { transport.header(it, "idempotency-key") }
        assertTrue(UUID4.matches(keys[0]!!))
        assertEquals(listOf(keys[0], keys[0]), keys.subList(1, 3), "one logical call, one key")
        assertTrue(UUID4.matches(keys[3]!!) && keys[3] != keys[0])
        assertEquals("ivr-key", keys[4])
        assertEquals(listOf(null, null), keys.subList(5, 7), "a sync takes no key: clientSessionId makes it idempotent")
        assertEquals(3, sleeper.delays.size)
    }

    @Test
    fun `a rate limit beyond the Retry-After cap surfaces as RATE_LIMITED with its header`() {
        val transport = FakeTransport(answer(429, """{"code":"RATE_LIMITED","error":"slow down"}""", "Retry-After" to "120"))
        val error = assertThrows(GuardApiError::class.java) { fakeClient(transport).createOfflineConsentLink(LINK) }
        assertEquals(429, error.status)
        assertEquals("RATE_LIMITED", error.code)
        assertEquals(1, transport.requests.size)
    }

    @Test
    fun `withdrawConsentByToken is public and retried`() {
        val transport = FakeTransport(answer(503), answer(200, """{"withdrawn":[{"consentId":"cns_1","purpose":"p","noticeId":"ntc_1","withdrawnAt":5}],"alreadyWithdrawn":[]}"""))
        val client = GuardClient.builder().baseUrl("https://guard.test").apiKey("gk_test_key").transport(transport).sleeper(RecordingSleeper()).build()
        val result = client.withdrawConsentByToken("wdt_0123456789abcdef0123456789abcdef")
        assertEquals(5L, result.withdrawn.single().withdrawnAt)
        assertEquals(2, transport.requests.size)
        assertNull(transport.header(1, "authorization"), "a public route: the API key is not sent")
        assertEquals("""{"withdrawalToken":"wdt_0123456789abcdef0123456789abcdef"}""", transport.body(1))
    }

    @Test
    fun `the typed canonical form equals the JSON one, organisation included`() {
        val basic = readJson("contract/vectors/capture-artifact.json").jsonObject.getValue("cases")
            .let { it as kotlinx.serialization.json.JsonArray }.map { it.jsonObject }.first { it.getValue("id").str == "basic" }
        val json = basic.getValue("input").jsonObject.getValue("session").jsonObject
        val typed = GuardJson.decodeFromJsonElement(OfflineCaptureSession.serializer(), JsonObject(json + ("deviceSignature" to kotlinx.serialization.json.JsonPrimitive("x"))))
        assertEquals(OfflinePrincipalHandle("phone_hash", "+919876543210"), typed.principalHandle)
        assertEquals(basic.getValue("canonical").str, canonicalizeCaptureArtifact(typed, json.getValue("organizationId").str))
    }
}
