package ai.guard.server

import ai.guard.server.models.ConsentLike
import ai.guard.server.models.ConsentStatusEntry
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.math.BigInteger

class HelpersTest {
    private data class Held(override val purpose: String, override val withdrawnAt: Long?) : ConsentLike

    @Test
    fun `hasConsent is exact, case-sensitive and ignores withdrawn records`() {
        val held = listOf(Held("Marketing", null), Held("Analytics", 1_700_000_001_000))
        assertTrue(hasConsent(held, "Marketing"))
        assertFalse(hasConsent(held, "Analytics"))
        assertFalse(hasConsent(held, "marketing"))
        assertFalse(hasConsent(held, "Market"))
        assertFalse(hasConsent(emptyList(), "Marketing"))
        val entries = listOf(ConsentStatusEntry("cns_1", "ntc_1", 1, "Marketing", "withdrawn", 1, 2), ConsentStatusEntry("cns_2", "ntc_1", 2, "Marketing", "active", 3, null))
        assertTrue(hasConsent(entries, "Marketing"), "one active record is enough")
    }

    private val secret = "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="

    @Test
    fun `Standard Webhooks headers - case-insensitive lookup, exact name first, a servlet-style lookup`() {
        val body = """{"a":1}"""
        val signature = signStandardWebhook(secret, "evt_1", "1700000001", body.toByteArray())
        val upper = mapOf("Webhook-Id" to "evt_1", "WEBHOOK-TIMESTAMP" to "1700000001", "webhook-signature" to signature)
        assertTrue(verifyStandardWebhook(secret, body, upper, nowSeconds = 1_700_000_001).isValid)
        val lookup = java.util.function.Function<String, String?> { name -> upper.entries.firstOrNull { it.key.equals(name, true) }?.value }
        assertTrue(verifyStandardWebhook(secret, body.toByteArray(), lookup, nowSeconds = 1_700_000_001).isValid)
        val empty = upper + ("webhook-signature" to "")
        assertEquals(StandardWebhookFailure.MISSING_HEADER, verifyStandardWebhook(secret, body, empty, nowSeconds = 1_700_000_001).reason)
        // Default clock: a delivery signed now verifies, one from 2020 does not.
        val now = (System.currentTimeMillis() / 1000).toString()
        val fresh = mapOf("webhook-id" to "evt_1", "webhook-timestamp" to now, "webhook-signature" to signStandardWebhook(secret, "evt_1", now, body.toByteArray()))
        assertTrue(verifyStandardWebhook(secret, body, fresh).isValid)
        assertEquals(StandardWebhookFailure.TIMESTAMP_TOO_OLD, verifyStandardWebhook(secret, body, upper).reason)
        assertEquals("invalid (timestamp_too_old)", verifyStandardWebhook(secret, body, upper).toString())
    }

    @Test
    fun `a malformed secret or tolerance is a caller error, not a verification result`() {
        val headers = mapOf("webhook-id" to "e", "webhook-timestamp" to "1", "webhook-signature" to "v1,x")
        for (bad in listOf("not a secret", "whsec_", "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8", "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh9=", "whsec_AAEC-wQ=")) {
            assertThrows(GuardWebhookSecretError::class.java, { verifyStandardWebhook(bad, "", headers, nowSeconds = 1) }, bad)
        }
        assertThrows(IllegalArgumentException::class.java) { verifyStandardWebhook(secret, "", headers, -1, 1) }
        assertThrows(GuardWebhookSecretError::class.java) { verifyWebhookSignature("", "body", "00") }
    }

    @Test
    fun `numbers are written the way JavaScript's String(n) writes them`() {
        val cases = mapOf<Number, String>(
            1 to "1", 1_700_000_001_000L to "1700000001000", 1.0 to "1", -0.0 to "0", 1_700_000_001_000.5 to "1700000001000.5",
            0.5 to "0.5", 1e21 to "1e+21", 1.5e-7 to "1.5e-7", 1e-7 to "1e-7", 1e-6 to "0.000001", 0.000001234 to "0.000001234", 123e20 to "1.23e+22", 9007199254740993.0 to "9007199254740992",
            Double.NaN to "NaN", Double.NEGATIVE_INFINITY to "-Infinity", BigInteger("9007199254740993") to "9007199254740993",
        )
        for ((value, text) in cases) assertEquals(text, jsNumber(value), "$value")
    }

    @Test
    fun `validation refuses what would collide, in field order`() {
        val input = AuditHashInput("org|x", "ntc_1", 1.5, "Mark\uD800eting", listOf("email", "", "a,b", "\uD83D\uDE00"), -1L, "offline_ivr")
        assertEquals(
            listOf("organizationId", "noticeVersion", "purpose", "dataTypes[1]", "dataTypes[2]", "givenAt", "source"),
            validateAuditFields(input).map { it.field },
        )
        assertEquals(emptyList<AuditFieldProblem>(), validateAuditFields(AuditHashInput("o", "n", 0, "p", emptyList(), 9_007_199_254_740_991L)))
        assertEquals(listOf("givenAt"), validateAuditFields(AuditHashInput("o", "n", 0, "p", emptyList(), 9_007_199_254_740_992L)).map { it.field })
        assertEquals(listOf("noticeVersion"), validateAuditFields(AuditHashInput("o", "n", Double.NaN, "p", emptyList(), 0)).map { it.field })
    }

    @Test
    fun `the audit hash sorts a copy and keys with the UTF-8 secret, and an empty secret works as in the other SDKs`() {
        val types = listOf("phone", "email")
        val input = AuditHashInput("org_abc123", "notice_v1", 1, "Marketing", types, 1_700_000_001_000L, AuditSources.BROKERED)
        assertEquals("fbff733e5abbc195f867f320b5d637e3e4f5a08f54de8f4cecaa723c62b79962", computeAuditHash("guard-audit-hash-test-secret-v1", input))
        assertEquals(listOf("phone", "email"), types, "the caller's list is not reordered")
        // HMAC-SHA256 with an empty key, as Node's createHmac computes it.
        assertEquals("b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad", hex(hmacSha256(ByteArray(0), ByteArray(0))))
    }
}
