@file:JvmName("GuardHelpers")
@file:JvmMultifileClass

package ai.guard.server

import java.security.MessageDigest
import java.time.Instant
import java.util.Base64
import javax.crypto.Mac
import javax.crypto.spec.SecretKeySpec

// Verifying Guard's webhook deliveries (contract/specs/webhooks.md; every case of
// contract/vectors/webhook-signature.json runs in WebhookVectorsTest). One endpoint secret
// (`whsec_…`) feeds both schemes, as a different key in each.

/** Prefix of every Guard webhook endpoint secret. */
public const val WEBHOOK_SECRET_PREFIX: String = "whsec_"

/** The Standard Webhooks replay window, in seconds, applied in both directions. */
public const val DEFAULT_WEBHOOK_TOLERANCE_SECONDS: Long = 300

/**
 * Checks `X-DPDP-Signature` (contract 1.6.0's header): after trimming ASCII whitespace (TAB, LF, FF,
 * CR, SPACE) it must be exactly 64 hex digits, either case, equal in constant time to HMAC-SHA256 of
 * [rawBody] keyed with the UTF-8 bytes of the whole secret string. Pass the body exactly as received:
 * re-serialised JSON does not verify. A missing or malformed header is `false`, never an exception.
 *
 * @throws GuardWebhookSecretError when [secret] is empty (a configuration mistake)
 */
public fun verifyWebhookSignature(secret: String, rawBody: ByteArray, signatureHeader: String?): Boolean {
    if (secret.isEmpty()) throw GuardWebhookSecretError("verifyWebhookSignature needs the endpoint's secret (whsec_…)")
    if (signatureHeader == null) return false
    val digits = signatureHeader.trim { it == '\t' || it == '\n' || it == '\u000c' || it == '\r' || it == ' ' }
    if (digits.length != 64 || !digits.all { it in '0'..'9' || it in 'a'..'f' || it in 'A'..'F' }) return false
    val received = ByteArray(32) { i -> digits.substring(2 * i, 2 * i + 2).toInt(16).toByte() }
    return MessageDigest.isEqual(received, hmacSha256(secret.toByteArray(Charsets.UTF_8), rawBody))
}

/** [verifyWebhookSignature] over a body given as text (its UTF-8 bytes are what was signed). */
public fun verifyWebhookSignature(secret: String, rawBody: String, signatureHeader: String?): Boolean =
    verifyWebhookSignature(secret, rawBody.toByteArray(Charsets.UTF_8), signatureHeader)

/** Why a Standard Webhooks delivery did not verify; checked in declaration order. */
public enum class StandardWebhookFailure(
    /** The reason as the SDK family spells it (`missing_header`, …). */
    public val wireName: String,
) {
    MISSING_HEADER("missing_header"),
    INVALID_TIMESTAMP("invalid_timestamp"),
    TIMESTAMP_TOO_OLD("timestamp_too_old"),
    TIMESTAMP_TOO_NEW("timestamp_too_new"),
    NO_MATCHING_SIGNATURE("no_matching_signature"),
}

/** The outcome of [verifyStandardWebhook]: valid, or the first failing check. */
public class StandardWebhookVerification private constructor(
    public val isValid: Boolean,
    /** Null when [isValid]. */
    public val reason: StandardWebhookFailure?,
) {
    override fun equals(other: Any?): Boolean =
        other is StandardWebhookVerification && other.isValid == isValid && other.reason == reason

    override fun hashCode(): Int = reason?.hashCode() ?: 1

    override fun toString(): String = if (isValid) "valid" else "invalid (${reason!!.wireName})"

    public companion object {
        @JvmField
        public val VALID: StandardWebhookVerification = StandardWebhookVerification(true, null)

        @JvmStatic
        public fun invalid(reason: StandardWebhookFailure): StandardWebhookVerification =
            StandardWebhookVerification(false, reason)
    }
}

/**
 * Checks the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`): all
 * present and non-empty; the timestamp is decimal digits within [toleranceSeconds] of now, both ways
 * (exactly the tolerance is accepted); some `v1` entry of the space-separated list equals the expected
 * signature exactly, compared in constant time. The signed timestamp is the header text as received.
 * De-duplicate on `webhook-id` yourself: delivery is at least once.
 *
 * @param headers the delivery's headers; names are matched exactly first, then ignoring case
 * @param nowSeconds the time to check against; null means the system clock
 * @throws GuardWebhookSecretError when [secret] is not `whsec_` + padded standard base64 (or bare base64)
 * @throws IllegalArgumentException when [toleranceSeconds] is negative
 */
@JvmOverloads
public fun verifyStandardWebhook(
    secret: String,
    rawBody: ByteArray,
    headers: Map<String, String?>,
    toleranceSeconds: Long = DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
    nowSeconds: Long? = null,
): StandardWebhookVerification = verifyStandardWebhook(secret, rawBody, { name -> header(headers, name) }, toleranceSeconds, nowSeconds)

/** [verifyStandardWebhook] over a body given as text (its UTF-8 bytes are what was signed). */
@JvmOverloads
public fun verifyStandardWebhook(
    secret: String,
    rawBody: String,
    headers: Map<String, String?>,
    toleranceSeconds: Long = DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
    nowSeconds: Long? = null,
): StandardWebhookVerification =
    verifyStandardWebhook(secret, rawBody.toByteArray(Charsets.UTF_8), headers, toleranceSeconds, nowSeconds)

/**
 * [verifyStandardWebhook] with headers read through [header] (for example a servlet's
 * `request::getHeader`), which returns null for an absent header.
 */
@JvmOverloads
public fun verifyStandardWebhook(
    secret: String,
    rawBody: ByteArray,
    header: java.util.function.Function<String, String?>,
    toleranceSeconds: Long = DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
    nowSeconds: Long? = null,
): StandardWebhookVerification {
    val key = standardWebhookKey(secret)
    require(toleranceSeconds >= 0) { "toleranceSeconds must be non-negative, got $toleranceSeconds" }
    val now = nowSeconds ?: Instant.now().epochSecond

    val id = header.apply("webhook-id")
    val timestamp = header.apply("webhook-timestamp")
    val signatures = header.apply("webhook-signature")
    if (id.isNullOrEmpty() || timestamp.isNullOrEmpty() || signatures.isNullOrEmpty()) {
        return StandardWebhookVerification.invalid(StandardWebhookFailure.MISSING_HEADER)
    }
    val seconds = parseTimestamp(timestamp)
        ?: return StandardWebhookVerification.invalid(StandardWebhookFailure.INVALID_TIMESTAMP)
    // Subtractions of values below 2^53 cannot overflow a Long.
    if (now - seconds > toleranceSeconds) return StandardWebhookVerification.invalid(StandardWebhookFailure.TIMESTAMP_TOO_OLD)
    if (seconds - now > toleranceSeconds) return StandardWebhookVerification.invalid(StandardWebhookFailure.TIMESTAMP_TOO_NEW)

    val expected = Base64.getEncoder()
        .encode(hmacSha256(key, "$id.$timestamp.".toByteArray(Charsets.UTF_8), rawBody))
    // Single spaces separate entries (key rotation sends several); a tab belongs to an entry.
    for (entry in signatures.split(' ')) {
        val comma = entry.indexOf(',')
        if (comma == -1 || entry.substring(0, comma) != "v1") continue
        if (MessageDigest.isEqual(entry.substring(comma + 1).toByteArray(Charsets.UTF_8), expected)) {
            return StandardWebhookVerification.VALID
        }
    }
    return StandardWebhookVerification.invalid(StandardWebhookFailure.NO_MATCHING_SIGNATURE)
}

private const val MAX_SAFE_INTEGER = 9_007_199_254_740_991L // 2^53 - 1, the family's bound on timestamps

/** Digits only (leading zeros allowed), at most 2^53 - 1; null otherwise. */
private fun parseTimestamp(text: String): Long? {
    if (!text.all { it in '0'..'9' }) return null
    val digits = text.trimStart('0').ifEmpty { "0" }
    if (digits.length > 16) return null
    return digits.toLong().takeIf { it <= MAX_SAFE_INTEGER }
}

private fun header(headers: Map<String, String?>, name: String): String? {
    if (headers.containsKey(name)) return headers[name]
    return headers.entries.firstOrNull { it.key.equals(name, ignoreCase = true) }?.value
}

private val CANONICAL_BASE64 = Regex("^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$")

/** The Standard Webhooks key: the base64 after `whsec_` (bare base64 is accepted too), canonical and padded. */
private fun standardWebhookKey(secret: String): ByteArray {
    val encoded = secret.removePrefix(WEBHOOK_SECRET_PREFIX)
    val key = if (CANONICAL_BASE64.matches(encoded)) Base64.getDecoder().decode(encoded) else null
    // The round trip refuses non-zero unused bits in the last character: one key, one spelling.
    if (key == null || key.isEmpty() || Base64.getEncoder().encodeToString(key) != encoded) {
        throw GuardWebhookSecretError(
            "the webhook secret must be \"$WEBHOOK_SECRET_PREFIX\" followed by padded standard base64, as the dashboard shows it",
        )
    }
    return key
}

/** Signs like the server: `X-DPDP-Signature` (lowercase hex). For tests and tooling; receivers verify. */
@JvmSynthetic
internal fun signDpdpSignature(secret: String, rawBody: ByteArray): String =
    hex(hmacSha256(secret.toByteArray(Charsets.UTF_8), rawBody))

/** Signs like the server: one `webhook-signature` entry, over the timestamp text given. */
@JvmSynthetic
internal fun signStandardWebhook(secret: String, id: String, timestamp: String, rawBody: ByteArray): String =
    "v1," + Base64.getEncoder().encodeToString(
        hmacSha256(standardWebhookKey(secret), "$id.$timestamp.".toByteArray(Charsets.UTF_8), rawBody),
    )

@JvmSynthetic
internal fun hex(bytes: ByteArray): String {
    val out = StringBuilder(bytes.size * 2)
    for (b in bytes) out.append("0123456789abcdef"[(b.toInt() shr 4) and 0xf]).append("0123456789abcdef"[b.toInt() and 0xf])
    return out.toString()
}

@JvmSynthetic
internal fun hmacSha256(key: ByteArray, vararg parts: ByteArray): ByteArray {
    val mac = Mac.getInstance("HmacSHA256")
    // SecretKeySpec refuses an empty key. HMAC pads the key with zero bytes to the block size, so one
    // zero byte is the same key as none, and the result equals the other SDKs' for an empty secret.
    mac.init(SecretKeySpec(if (key.isEmpty()) ByteArray(1) else key, "HmacSHA256"))
    for (part in parts) mac.update(part)
    return mac.doFinal()
}
