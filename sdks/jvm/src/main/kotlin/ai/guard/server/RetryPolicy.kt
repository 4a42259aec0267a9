package ai.guard.server

import java.math.BigDecimal
import java.time.DateTimeException
import java.time.Duration
import java.time.Instant
import java.time.LocalDateTime
import java.time.ZoneOffset
import kotlin.math.min
import kotlin.math.pow
import kotlin.math.roundToLong

/** What one failed attempt came to, as far as retrying is concerned. */
public sealed class AttemptFailure {
    /** No response: refused, reset, DNS, TLS. */
    public object Connection : AttemptFailure() {
        override fun toString(): String = "Connection"
    }

    /** The attempt outlived its timeout. */
    public object Timeout : AttemptFailure() {
        override fun toString(): String = "Timeout"
    }

    /** A non-2xx answer, with its `Retry-After` header as sent (null when absent). */
    public data class Status(public val status: Int, public val retryAfter: String?) : AttemptFailure()
}

/** The outcome of [RetryPolicy.decide]: retry after [delay], or stop; [reason] says why either way. */
public data class RetryDecision(public val retry: Boolean, public val delay: Duration, public val reason: String) {
    public companion object {
        @JvmStatic
        public fun stop(reason: String): RetryDecision = RetryDecision(false, Duration.ZERO, reason)

        @JvmStatic
        public fun retryAfter(delay: Duration, reason: String): RetryDecision = RetryDecision(true, delay, reason)
    }
}

/**
 * When a failed attempt is retried and how long to wait first. The constants and the decision table
 * are the SDK family's (conformance/README.md "Transport constants"): Node and Python use the same.
 * Public so the rules can be read, tested and logged, but the client is the only caller that matters.
 */
public object RetryPolicy {
    /** Retries after the first attempt, so at most three attempts. */
    public const val DEFAULT_MAX_RETRIES: Int = 2

    /** Delay before retry 1 when the server gave no usable `Retry-After`. */
    @JvmField
    public val INITIAL_RETRY_DELAY: Duration = Duration.ofMillis(500)

    /** Upper bound of the computed backoff. */
    @JvmField
    public val MAX_RETRY_DELAY: Duration = Duration.ofSeconds(8)

    /** Jitter takes off up to this fraction of the backoff, so clients that failed together spread out. */
    public const val RETRY_JITTER: Double = 0.25

    /** The longest `Retry-After` honoured inside one call; a longer one means "give up for now". */
    @JvmField
    public val RETRY_AFTER_CAP: Duration = Duration.ofSeconds(60)

    /** Per attempt, not per call. */
    @JvmField
    public val DEFAULT_TIMEOUT: Duration = Duration.ofSeconds(30)

    /** Sent on every attempt: `0` on the first, `n` on the n-th retry. */
    public const val RETRY_COUNT_HEADER: String = "X-Guard-Retry-Count"

    /**
     * `min(0.5 s × 2^(n−1), 8 s) × (1 − 0.25 × random)`: the wait before retry [retryNumber] (1-based)
     * when the server said nothing usable. [random] is in [0, 1).
     */
    @JvmStatic
    public fun backoff(retryNumber: Int, random: Double): Duration {
        require(retryNumber >= 1) { "retryNumber starts at 1" }
        val baseMs = min(
            INITIAL_RETRY_DELAY.toMillis() * 2.0.pow(retryNumber - 1),
            MAX_RETRY_DELAY.toMillis().toDouble(),
        )
        return Duration.ofNanos((baseMs * (1 - RETRY_JITTER * random) * 1_000_000).roundToLong())
    }

    private val DELTA_SECONDS = Regex("^[0-9]+(\\.[0-9]+)?$")
    // The three HTTP-date forms (RFC 9110 section 5.6.7). The weekday is not checked, as in
    // JavaScript's Date.parse, so a server with a wrong weekday gets the same wait from every SDK.
    private val IMF_FIXDATE = Regex("^(?:[A-Za-z]{3}, )?([0-9]{1,2}) ([A-Za-z]{3}) ([0-9]{4}) ([0-9]{2}):([0-9]{2}):([0-9]{2}) GMT$")
    private val RFC_850 = Regex("^[A-Za-z]+, ([0-9]{2})-([A-Za-z]{3})-([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2}) GMT$")
    private val ASCTIME = Regex("^[A-Za-z]{3} ([A-Za-z]{3}) +([0-9]{1,2}) ([0-9]{2}):([0-9]{2}):([0-9]{2}) ([0-9]{4})$")
    private val MONTHS = listOf("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")

    private fun httpDate(text: String): Instant? {
        // Each form's groups, reordered as year, month name, day, hour, minute, second.
        val parts = IMF_FIXDATE.matchEntire(text)?.groupValues?.let { g -> listOf(g[3], g[2], g[1], g[4], g[5], g[6]) }
            ?: RFC_850.matchEntire(text)?.groupValues?.let { g ->
                val yy = g[3].toInt() // two-digit years: 70-99 are 19xx, 00-69 are 20xx
                listOf((if (yy >= 70) 1900 + yy else 2000 + yy).toString(), g[2], g[1], g[4], g[5], g[6])
            }
            ?: ASCTIME.matchEntire(text)?.groupValues?.let { g -> listOf(g[6], g[1], g[2], g[3], g[4], g[5]) }
            ?: return null
        val month = MONTHS.indexOf(parts[1].lowercase()) + 1
        if (month == 0) return null
        val (year, _, day, hour, minute, second) = parts
        return try {
            LocalDateTime.of(year.toInt(), month, day.toInt(), hour.toInt(), minute.toInt(), second.toInt())
                .toInstant(ZoneOffset.UTC)
        } catch (_: DateTimeException) {
            null // 32 October and the like
        }
    }

    /**
     * `Retry-After` as a wait: delta-seconds (a non-negative integer or decimal) or an HTTP-date (one in
     * the past means no wait). Null when absent or unparseable, so the caller falls back to [backoff].
     */
    @JvmStatic
    public fun parseRetryAfter(value: String?, now: Instant): Duration? {
        val text = value?.trim() ?: return null
        if (DELTA_SECONDS.matches(text)) {
            // BigDecimal, so an absurd value compares as absurd instead of overflowing.
            val nanos = BigDecimal(text).movePointRight(9)
            val capNanos = BigDecimal.valueOf(Long.MAX_VALUE)
            return Duration.ofNanos(if (nanos > capNanos) Long.MAX_VALUE else nanos.toLong())
        }
        val date = httpDate(text) ?: return null
        val wait = Duration.between(now, date)
        return if (wait.isNegative) Duration.ZERO else wait
    }

    /**
     * The one place that decides whether a failed attempt is retried, in the family's order:
     * 1. the caller aborted → no; 2. retries used ≥ maxRetries → no; 3. not safe to repeat → no;
     * 4. connection failure or timeout → yes; 5. 429 or 5xx → yes (Retry-After honoured up to the cap,
     * and above the cap → no); 6. anything else → no.
     *
     * @param retriesSoFar retries already made (0 after the first attempt failed)
     * @param safeToRepeat a GET, a write carrying an `Idempotency-Key`, or a write the contract
     *   declares idempotent by its natural key
     * @param random a value in [0, 1) for the jitter
     */
    @JvmStatic
    public fun decide(
        failure: AttemptFailure,
        retriesSoFar: Int,
        maxRetries: Int,
        safeToRepeat: Boolean,
        aborted: Boolean,
        now: Instant,
        random: Double,
    ): RetryDecision {
        if (aborted) return RetryDecision.stop("the caller aborted")
        if (retriesSoFar >= maxRetries) return RetryDecision.stop("retries exhausted ($retriesSoFar of $maxRetries)")
        if (!safeToRepeat) return RetryDecision.stop("not safe to repeat: a repeat could act twice")
        val backoff = { backoff(retriesSoFar + 1, random) }
        return when (failure) {
            AttemptFailure.Connection -> RetryDecision.retryAfter(backoff(), "connection failed")
            AttemptFailure.Timeout -> RetryDecision.retryAfter(backoff(), "attempt timed out")
            is AttemptFailure.Status -> {
                val status = failure.status
                if (status != 429 && status !in 500..599) {
                    return RetryDecision.stop("status $status cannot change on a repeat")
                }
                val retryAfter = parseRetryAfter(failure.retryAfter, now)
                when {
                    retryAfter == null -> RetryDecision.retryAfter(backoff(), "status $status, backing off")
                    retryAfter > RETRY_AFTER_CAP -> RetryDecision.stop(
                        "Retry-After ${failure.retryAfter} is beyond the ${RETRY_AFTER_CAP.seconds} s cap",
                    )
                    else -> RetryDecision.retryAfter(retryAfter, "status $status, Retry-After honoured")
                }
            }
        }
    }
}

private operator fun <T> List<T>.component6(): T = this[5]
