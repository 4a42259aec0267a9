@file:JvmName("GuardHelpers")
@file:JvmMultifileClass

package ai.guard.server

import ai.guard.server.models.OfflineCaptureSession
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.jsonObject
import java.math.BigDecimal
import java.math.BigInteger
import java.security.AlgorithmParameters
import java.security.GeneralSecurityException
import java.security.KeyFactory
import java.security.Signature
import java.security.interfaces.ECPublicKey
import java.security.spec.ECGenParameterSpec
import java.security.spec.ECParameterSpec
import java.security.spec.X509EncodedKeySpec
import java.util.Base64

// The offline capture artefact `dpdpcca/2` (contract/specs/capture-artifact.md): the canonical string
// an enrolled device signs, and the ECDSA P-256 check of its signature, so a server fronting a fleet
// can pre-check sessions before GuardClient.syncOfflineCaptures (Guard verifies again either way).
// Every case of contract/vectors/capture-artifact.json runs in VectorsTest. The JDK's own ECDSA
// (SunEC) verifies: no curve arithmetic here.

/** The format tag, the first token of every canonical string. */
public const val CAPTURE_ARTIFACT_FORMAT: String = "dpdpcca/2"

/** The session cannot be made into an artefact; Guard answers it `rejected` / `invalid_session`. */
public class CaptureArtifactError(
    /** `duplicate_purpose_key` or `invalid_field`. */
    public val code: String,
    /** The path of the offending value, e.g. `purposeGrants[2].purposeKey`. */
    public val field: String,
    message: String,
) : IllegalArgumentException("$field: $message")

private val CAPTURE_CHANNELS = listOf("qr", "agent_app", "pos", "async_link", "ivr")
private val GRANT_STATUSES = listOf("opt_in", "opt_out")
private val HANDLE_KINDS = listOf("phone_hash", "uhid", "cbs_ref", "none")
private val MAX_SAFE_INTEGER = BigInteger.valueOf(9_007_199_254_740_991L)

private fun invalid(field: String, message: String): Nothing = throw CaptureArtifactError("invalid_field", field, message)

private fun captureText(value: JsonElement?, field: String): String {
    if (value !is JsonPrimitive || !value.isString) invalid(field, "must be a string")
    val text = value.content
    // An unpaired surrogate has no UTF-8 form (JavaScript would sign U+FFFD in its place).
    var i = 0
    while (i < text.length) {
        val c = text[i]
        if (Character.isHighSurrogate(c) && i + 1 < text.length && Character.isLowSurrogate(text[i + 1])) {
            i += 2
            continue
        }
        if (Character.isSurrogate(c)) invalid(field, "must be well-formed Unicode (no unpaired surrogate)")
        i++
    }
    return text
}

private fun captureInteger(value: JsonElement?, field: String): String {
    // A JSON number: 3.0 is the integer 3, as JavaScript reads it.
    val number = (value as? JsonPrimitive)?.takeIf { !it.isString }?.content?.let { runCatching { BigDecimal(it) }.getOrNull() }
    val integer = number?.let { runCatching { it.toBigIntegerExact() }.getOrNull() }
    if (integer == null || integer.signum() < 0 || integer > MAX_SAFE_INTEGER) invalid(field, "must be a non-negative safe integer")
    return integer.toString()
}

private fun captureOneOf(allowed: List<String>, value: JsonElement?, field: String): String {
    val text = (value as? JsonPrimitive)?.takeIf { it.isString }?.content
    if (text == null || text !in allowed) invalid(field, "must be one of ${allowed.joinToString(", ")}")
    return text
}

private fun captureList(value: JsonElement?, field: String): JsonArray = value as? JsonArray ?: invalid(field, "must be an array")

private fun captureRecord(value: JsonElement?, field: String): JsonObject = value as? JsonObject ?: invalid(field, "must be an object")

/** UTF-8 byte order, unsigned (= code point order); not Kotlin's `compareTo`, which compares UTF-16 units. */
private val BY_UTF8_BYTES = Comparator<String> { a, b -> java.util.Arrays.compareUnsigned(a.encodeToByteArray(), b.encodeToByteArray()) }

private fun captureToken(value: String): String = "${value.encodeToByteArray().size}:$value"

/**
 * The `dpdpcca/2` canonical string of [session], an `OfflineCaptureSession` as JSON (wire field names)
 * plus `organizationId`; sign or verify its UTF-8 bytes. Unsigned fields (`purposeLabel`, `category`,
 * `linkId`, `deviceSignature`) are ignored. Throws [CaptureArtifactError] when two grants share a
 * `purposeKey` or a signed field is missing, ill-typed or outside its enumeration.
 */
public fun canonicalizeCaptureArtifact(session: JsonObject): String {
    val grants = captureList(session["purposeGrants"], "purposeGrants").mapIndexed { index, grant ->
        val fields = captureRecord(grant, "purposeGrants[$index]")
        captureText(fields["purposeKey"], "purposeGrants[$index].purposeKey") to
            captureOneOf(GRANT_STATUSES, fields["status"], "purposeGrants[$index].status")
    }
    val seen = HashSet<String>()
    grants.forEachIndexed { index, (key, _) ->
        if (!seen.add(key)) {
            throw CaptureArtifactError("duplicate_purpose_key", "purposeGrants[$index].purposeKey", "purposeKey \"$key\" appears more than once")
        }
    }
    val dataTypes = captureList(session["dataTypes"], "dataTypes").mapIndexed { index, value -> captureText(value, "dataTypes[$index]") }
    var handleKind = "none"
    var handleValue = "null"
    val handleElement = session["principalHandle"]
    if (handleElement != null && handleElement !is JsonNull) {
        val handle = captureRecord(handleElement, "principalHandle")
        handleKind = captureOneOf(HANDLE_KINDS, handle["kind"], "principalHandle.kind")
        handleValue = captureText(handle["value"], "principalHandle.value")
    }
    val sortedGrants = grants.sortedWith { a, b -> BY_UTF8_BYTES.compare(a.first, b.first) }
    val values = buildList {
        add(CAPTURE_ARTIFACT_FORMAT)
        add(captureText(session["clientSessionId"], "clientSessionId"))
        add(captureText(session["organizationId"], "organizationId"))
        add(captureText(session["deviceId"], "deviceId"))
        add(captureText(session["noticeId"], "noticeId"))
        add(captureInteger(session["noticeVersion"], "noticeVersion"))
        add(captureText(session["noticeLocale"], "noticeLocale"))
        add(sortedGrants.size.toString())
        sortedGrants.forEach { (key, status) -> add(key); add(status) }
        add(dataTypes.size.toString())
        addAll(dataTypes.sortedWith(BY_UTF8_BYTES))
        add(handleKind)
        add(handleValue)
        add(captureInteger(session["capturedAtClient"], "capturedAtClient"))
        add(captureOneOf(CAPTURE_CHANNELS, session["channel"], "channel"))
    }
    return values.joinToString("|") { captureToken(it) }
}

/**
 * The canonical string of a typed [session] from the device of organisation [organizationId] (the
 * wire session does not carry it: the device has it from its configuration, Guard from the device's
 * enrolment).
 */
public fun canonicalizeCaptureArtifact(session: OfflineCaptureSession, organizationId: String): String {
    val wire = GuardJson.encodeToJsonElement(OfflineCaptureSession.serializer(), session).jsonObject
    return canonicalizeCaptureArtifact(buildJsonObject { wire.forEach { (k, v) -> put(k, v) }; put("organizationId", JsonPrimitive(organizationId)) })
}

private val STANDARD_BASE64 = Regex("(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")

/** The bytes of [text] when it is canonical padded standard base64 (its bytes' only encoding), else null. */
private fun strictBase64(text: String): ByteArray? {
    if (!STANDARD_BASE64.matches(text)) return null
    val bytes = Base64.getDecoder().decode(text)
    return if (Base64.getEncoder().encodeToString(bytes) == text) bytes else null
}

private val P256: ECParameterSpec = AlgorithmParameters.getInstance("EC").run {
    init(ECGenParameterSpec("secp256r1"))
    getParameterSpec(ECParameterSpec::class.java)
}

private fun isP256(params: ECParameterSpec): Boolean =
    params.curve == P256.curve && params.generator == P256.generator && params.order == P256.order && params.cofactor == P256.cofactor

/**
 * ECDSA P-256 / SHA-256 check of [canonical]'s UTF-8 bytes against [signatureBase64], standard base64
 * of the raw 64-byte `r‖s`, with the device's enrolled key [publicKeySpkiBase64] (base64 SPKI DER).
 * False, never a throw, for a malformed or non-P-256 key, a signature that is not canonical base64 of
 * exactly 64 bytes (DER is refused) or a mismatch. High-S signatures verify (secure elements do not
 * normalise S).
 */
public fun verifyCaptureSignature(publicKeySpkiBase64: String, canonical: String, signatureBase64: String): Boolean {
    val der = strictBase64(publicKeySpkiBase64) ?: return false
    val signature = strictBase64(signatureBase64)?.takeIf { it.size == 64 } ?: return false
    return try {
        val key = KeyFactory.getInstance("EC").generatePublic(X509EncodedKeySpec(der)) as? ECPublicKey ?: return false
        // Only P-256: a secp256k1 key also makes 64-byte signatures and must not pass for a device key.
        if (!isP256(key.params)) return false
        Signature.getInstance("SHA256withECDSAinP1363Format").run {
            initVerify(key)
            update(canonical.encodeToByteArray())
            verify(signature)
        }
    } catch (e: GeneralSecurityException) {
        false
    } catch (e: IllegalArgumentException) {
        false
    }
}
