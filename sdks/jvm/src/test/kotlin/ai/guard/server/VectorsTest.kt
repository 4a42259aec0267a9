package ai.guard.server

import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.long
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.TestFactory
import java.math.BigInteger

/** Every case of the golden vectors (contract/vectors) for the helpers this SDK has; there is no skip list. */
class VectorsTest {
    private fun cases(file: String): List<JsonObject> {
        val doc = readJson("contract/vectors/$file").jsonObject
        val cases = doc.getValue("cases").jsonArray.map { it.jsonObject }
        assertEquals(doc.getValue("numberOfCases").jsonPrimitive.long, cases.size.toLong(), "$file numberOfCases")
        return cases
    }

    private fun number(element: JsonElement): Number {
        val text = element.jsonPrimitive.content
        return if (Regex("-?[0-9]+").matches(text)) text.toLongOrNull() ?: BigInteger(text) else text.toDouble()
    }

    private fun auditInput(input: JsonObject) = AuditHashInput(
        organizationId = input.getValue("organizationId").str,
        noticeId = input.getValue("noticeId").str,
        noticeVersion = number(input.getValue("noticeVersion")),
        purpose = input.getValue("purpose").str,
        dataTypes = input.getValue("dataTypes").jsonArray.map { it.str },
        givenAt = number(input.getValue("givenAt")),
        source = input["source"].let { if (it == null || it is JsonNull) null else it.str },
    )

    @TestFactory
    fun auditHash(): List<DynamicTest> {
        val file = readJson("contract/vectors/audit-hash.json").jsonObject
        val testSecret = file.getValue("testSecret").str
        return cases("audit-hash.json").map { case ->
            DynamicTest.dynamicTest("audit-hash ${case.getValue("id").str}") {
                val input = auditInput(case.getValue("input").jsonObject)
                val canonical = canonicalizeAuditEvent(input)
                assertEquals(case.getValue("canonical").str, canonical, "canonical")
                val problems = validateAuditFields(input).map { it.field }
                if (case.getValue("result").str == "valid") {
                    assertEquals(emptyList<String>(), problems, "validation")
                    assertEquals(case.getValue("canonicalUtf8Hex").str, hex(canonical.toByteArray(Charsets.UTF_8)), "canonicalUtf8Hex")
                    val secret = case.optString("secret") ?: testSecret
                    assertEquals(case.getValue("expected").str, computeAuditHash(secret, input), "hash")
                } else {
                    assertEquals(case.getValue("invalidFields").jsonArray.map { it.str }, problems, "invalidFields")
                }
            }
        }
    }

    @TestFactory
    fun webhookSignature(): List<DynamicTest> {
        val testSecret = readJson("contract/vectors/webhook-signature.json").jsonObject.getValue("testSecret").str
        return cases("webhook-signature.json").map { case ->
            DynamicTest.dynamicTest("webhook ${case.getValue("id").str}") {
                val input = case.getValue("input").jsonObject
                val secret = input.optString("secret") ?: case.optString("secret") ?: testSecret
                val body = input.getValue("body").str.toByteArray(Charsets.UTF_8)
                val valid = case.getValue("result").str == "valid"
                val expectedSignature = case.optString("expectedSignature")
                when (val scheme = case.getValue("scheme").str) {
                    "x-dpdp-signature" -> {
                        val header = (input["header"] as? JsonPrimitive)?.takeIf { it.isString }?.content
                        assertEquals(valid, verifyWebhookSignature(secret, body, header), "verify")
                        if (expectedSignature != null) assertEquals(expectedSignature, signDpdpSignature(secret, body), "sign")
                    }
                    "standard-webhooks" -> {
                        val headers = input.getValue("headers").jsonObject.mapValues { (_, v) -> v.str }
                        val verification = verifyStandardWebhook(
                            secret,
                            body,
                            headers,
                            input["toleranceSeconds"]?.jsonPrimitive?.long ?: DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
                            input.getValue("nowSeconds").jsonPrimitive.long,
                        )
                        assertEquals(valid, verification.isValid, "verify: $verification")
                        if (valid) assertNull(verification.reason) else assertEquals(case.getValue("reason").str, verification.reason?.wireName)
                        case.optString("signedContent")?.let { signed ->
                            val content = "${headers["webhook-id"]}.${headers["webhook-timestamp"]}.${input.getValue("body").str}"
                            assertEquals(signed, content, "signedContent")
                        }
                        if (expectedSignature != null) {
                            val timestamp = headers.getValue("webhook-timestamp").toLong().toString()
                            assertEquals(expectedSignature, signStandardWebhook(secret, headers.getValue("webhook-id"), timestamp, body), "sign")
                        }
                    }
                    else -> throw AssertionError("unknown scheme $scheme")
                }
            }
        }
    }

    @TestFactory
    fun captureArtifact(): List<DynamicTest> {
        val keys = readJson("contract/vectors/capture-artifact.json").jsonObject.getValue("testKeys").jsonObject
        return cases("capture-artifact.json").map { case ->
            DynamicTest.dynamicTest("capture-artifact ${case.getValue("id").str}") {
                val input = case.getValue("input").jsonObject
                val session = input.getValue("session").jsonObject
                val error = case["error"]?.jsonObject
                if (error != null) {
                    val thrown = assertThrows(CaptureArtifactError::class.java) { canonicalizeCaptureArtifact(session) }
                    assertEquals(error.getValue("code").str to error.getValue("field").str, thrown.code to thrown.field)
                    return@dynamicTest
                }
                val canonical = canonicalizeCaptureArtifact(session)
                assertEquals(case.getValue("canonical").str, canonical, "canonical")
                assertEquals(case.getValue("canonicalUtf8Hex").str, hex(canonical.toByteArray(Charsets.UTF_8)), "canonicalUtf8Hex")
                val key = keys.getValue(input.getValue("publicKey").str).jsonObject.getValue("publicKeySpkiBase64").str
                assertEquals(case.getValue("result").str == "valid", verifyCaptureSignature(key, canonical, input.getValue("signature").str), "verify")
            }
        }
    }

    @TestFactory
    fun requiredFlagsAreStillCovered(): List<DynamicTest> {
        // The cases that pin divergences between real SDK families must stay in the files we run.
        val wanted = mapOf(
            "audit-hash.json" to listOf("data-types-utf16-order", "refused-fractional-given-at", "secret-non-ascii"),
            "webhook-signature.json" to listOf("dpdp-trailing-garbage", "sw-received-timestamp-signed", "sw-tab-is-not-a-separator", "sw-interop-reference"),
        )
        return wanted.map { (file, ids) ->
            DynamicTest.dynamicTest("$file keeps ${ids.size} pinned cases") {
                val present = cases(file).map { it.getValue("id").str }.toSet()
                for (id in ids) assertTrue(id in present, "$file lost case $id")
            }
        }
    }
}
