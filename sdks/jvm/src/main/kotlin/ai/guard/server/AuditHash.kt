@file:JvmName("GuardHelpers")
@file:JvmMultifileClass

package ai.guard.server

import java.math.BigDecimal
import java.math.BigInteger
import java.math.MathContext
import java.math.RoundingMode

// The consent audit hash (contract/specs/audit-hash.md), byte-identical to contract 1.6.0, so an
// integrator can recompute the hash Guard stored from their own records. Every case of
// contract/vectors/audit-hash.json runs in AuditHashVectorsTest.

/** The `source` values the audit hash accepts (besides null / absent). */
public object AuditSources {
    public const val BROKERED: String = "brokered"
    public const val DIRECT: String = "direct"
    public const val ANONYMOUS: String = "anonymous"
    public const val LINKED: String = "linked"

    @JvmField
    public val ALL: List<String> = listOf(BROKERED, DIRECT, ANONYMOUS, LINKED)
}

/**
 * The evidence a consent event's audit hash covers. [noticeVersion] and [givenAt] are [Number]s
 * because the canonical form is defined over JSON numbers: pass an `Int` or `Long` (every valid value
 * is one); a fraction or an out-of-range value is written the way JavaScript writes it, so that
 * [validateAuditFields] can refuse it and [canonicalizeAuditEvent] still gives the 1.6.0 string.
 */
public data class AuditHashInput @JvmOverloads constructor(
    public val organizationId: String,
    public val noticeId: String,
    public val noticeVersion: Number,
    public val purpose: String,
    public val dataTypes: List<String>,
    /** Epoch milliseconds. */
    public val givenAt: Number,
    /** One of [AuditSources], or null. */
    public val source: String? = null,
)

/** One reason the server would refuse an audit-hash input; [field] is a path such as `dataTypes[2]`. */
public data class AuditFieldProblem(public val field: String, public val reason: String)

/**
 * `organizationId|noticeId|noticeVersion|purpose|dataTypes|givenAt|source`, the data types sorted by
 * UTF-16 code units (Kotlin's natural String order, which is JavaScript's default sort and so the
 * contract's) and joined with `,`; a null source is the four letters `null`. Total, as in 1.6.0: call
 * [validateAuditFields] first on anything you did not build yourself.
 */
public fun canonicalizeAuditEvent(input: AuditHashInput): String = listOf(
    input.organizationId,
    input.noticeId,
    jsNumber(input.noticeVersion),
    input.purpose,
    input.dataTypes.sorted().joinToString(","),
    jsNumber(input.givenAt),
    input.source ?: "null",
).joinToString("|")

/**
 * Lowercase hex HMAC-SHA256 of the canonical string, keyed with the UTF-8 bytes of [secret] (the
 * deployment's audit-hash secret, not a webhook secret). Secret first, as in [verifyWebhookSignature].
 */
public fun computeAuditHash(secret: String, input: AuditHashInput): String {
    return hex(hmacSha256(secret.toByteArray(Charsets.UTF_8), canonicalizeAuditEvent(input).toByteArray(Charsets.UTF_8)))
}

/**
 * The problems that would let two different inputs share a canonical string (and so a hash), in
 * field order; empty when the input is safe to hash. Mirrors what the server refuses with 400.
 */
public fun validateAuditFields(input: AuditHashInput): List<AuditFieldProblem> {
    val problems = ArrayList<AuditFieldProblem>()
    fun check(field: String, reason: String?) {
        if (reason != null) problems.add(AuditFieldProblem(field, reason))
    }
    check("organizationId", textProblem(input.organizationId, "|"))
    check("noticeId", textProblem(input.noticeId, "|"))
    check("noticeVersion", integerProblem(input.noticeVersion))
    check("purpose", textProblem(input.purpose, "|"))
    input.dataTypes.forEachIndexed { i, dataType ->
        check("dataTypes[$i]", if (dataType.isEmpty()) "must not be empty" else textProblem(dataType, "|,"))
    }
    check("givenAt", integerProblem(input.givenAt))
    check(
        "source",
        if (input.source == null || input.source in AuditSources.ALL) null else "must be brokered, direct, anonymous, linked or null",
    )
    return problems
}

private fun textProblem(value: String, forbidden: String): String? {
    val found = value.firstOrNull { it in forbidden }
    if (found != null) return "must not contain $found"
    // A lone surrogate has no UTF-8 form; encoders write U+FFFD, so "a\uD800" would hash like "a\uFFFD".
    var i = 0
    while (i < value.length) {
        val c = value[i]
        if (c.isHighSurrogate() && i + 1 < value.length && value[i + 1].isLowSurrogate()) {
            i += 2
            continue
        }
        if (c.isSurrogate()) return "must not contain an unpaired surrogate"
        i++
    }
    return null
}

private val MAX_SAFE_INTEGER: BigDecimal = BigDecimal.valueOf(9_007_199_254_740_991L)

private fun integerProblem(value: Number): String? {
    val exact = exactValue(value)
    val ok = exact != null && exact.signum() >= 0 && exact <= MAX_SAFE_INTEGER &&
        (exact.signum() == 0 || exact.stripTrailingZeros().scale() <= 0)
    return if (ok) null else "must be an integer from 0 to 2^53 - 1"
}

/** The exact value of a finite number, or null for NaN and infinities. */
private fun exactValue(value: Number): BigDecimal? = when (value) {
    is Long, is Int, is Short, is Byte -> BigDecimal.valueOf(value.toLong())
    is BigInteger -> BigDecimal(value)
    is BigDecimal -> value
    else -> value.toDouble().takeIf { it.isFinite() }?.let { BigDecimal(it) }
}

/** How JavaScript's `String(n)` writes a number, which is what the 1.6.0 canonical form used. */
@JvmSynthetic
internal fun jsNumber(value: Number): String {
    when (value) {
        is Long, is Int, is Short, is Byte, is BigInteger -> return value.toString()
    }
    val d = value.toDouble()
    if (d.isNaN()) return "NaN"
    if (d.isInfinite()) return if (d > 0) "Infinity" else "-Infinity"
    if (d == 0.0) return "0"
    // Shortest digits that read back as the same double (JDK 17's Double.toString is not always the
    // shortest), then JavaScript's layout: plain from 1e-6 up to 1e21, else an exponent.
    val exact = BigDecimal(d)
    val shortest = (1..17).asSequence()
        .map { exact.round(MathContext(it, RoundingMode.HALF_EVEN)) }
        .first { it.toDouble() == d }
        .stripTrailingZeros()
    val abs = Math.abs(d)
    if (abs >= 1e-6 && abs < 1e21) return shortest.toPlainString()
    val digits = shortest.unscaledValue().abs().toString()
    val exponent = digits.length - 1 - shortest.scale()
    val mantissa = if (digits.length == 1) digits else digits[0] + "." + digits.substring(1)
    return (if (d < 0) "-" else "") + mantissa + "e" + (if (exponent >= 0) "+" else "") + exponent
}
