package ai.guard.server

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.CsvSource
import java.time.Duration
import java.time.Instant

class RetryPolicyTest {
    private val now = Instant.parse("2015-10-21T07:28:00Z")

    private fun decide(
        failure: AttemptFailure,
        retriesSoFar: Int = 0,
        maxRetries: Int = 2,
        safe: Boolean = true,
        aborted: Boolean = false,
        random: Double = 0.0,
    ) = RetryPolicy.decide(failure, retriesSoFar, maxRetries, safe, aborted, now, random)

    @Test
    fun `the family's constants`() {
        assertEquals(2, RetryPolicy.DEFAULT_MAX_RETRIES)
        assertEquals(Duration.ofMillis(500), RetryPolicy.INITIAL_RETRY_DELAY)
        assertEquals(Duration.ofSeconds(8), RetryPolicy.MAX_RETRY_DELAY)
        assertEquals(Duration.ofSeconds(60), RetryPolicy.RETRY_AFTER_CAP)
        assertEquals(Duration.ofSeconds(30), RetryPolicy.DEFAULT_TIMEOUT)
        assertEquals("X-Guard-Retry-Count", RetryPolicy.RETRY_COUNT_HEADER)
    }

    @ParameterizedTest(name = "retry {0}, random {1} waits {2} ms")
    @CsvSource(
        "1, 0.0, 500", "2, 0.0, 1000", "3, 0.0, 2000", "4, 0.0, 4000", "5, 0.0, 8000", "6, 0.0, 8000", "30, 0.0, 8000",
        "1, 0.5, 437.5", "2, 0.999, 750.25", "5, 1.0, 6000",
    )
    fun `backoff is exponential, capped at 8 s, and jitter takes off up to a quarter`(n: Int, random: Double, ms: Double) {
        assertEquals(Duration.ofNanos((ms * 1_000_000).toLong()), RetryPolicy.backoff(n, random))
    }

    @Test
    fun `the decision table, in order`() {
        val status503 = AttemptFailure.Status(503, null)
        // 1. aborted beats everything, even a retryable failure with budget left
        assertEquals("the caller aborted", decide(status503, aborted = true).reason)
        // 2. the budget
        assertFalse(decide(status503, retriesSoFar = 2, maxRetries = 2).retry)
        assertFalse(decide(AttemptFailure.Connection, maxRetries = 0).retry)
        // 3. not safe to repeat: never, whatever the failure
        for (failure in listOf(AttemptFailure.Connection, AttemptFailure.Timeout, status503, AttemptFailure.Status(429, "0"))) {
            val decision = decide(failure, safe = false)
            assertFalse(decision.retry, "$failure")
            assertTrue(decision.reason.startsWith("not safe to repeat"))
        }
        // 4. no response
        assertEquals(RetryDecision(true, Duration.ofMillis(500), "connection failed"), decide(AttemptFailure.Connection))
        assertEquals(RetryDecision(true, Duration.ofMillis(1000), "attempt timed out"), decide(AttemptFailure.Timeout, retriesSoFar = 1))
        // 5. 429 and every 5xx
        for (status in listOf(429, 500, 502, 503, 504, 599)) assertTrue(decide(AttemptFailure.Status(status, null)).retry, "$status")
        // 6. anything else
        for (status in listOf(200, 301, 400, 401, 403, 404, 409, 422, 426, 600)) {
            assertFalse(decide(AttemptFailure.Status(status, "0")).retry, "$status")
        }
    }

    @Test
    fun `Retry-After is waited exactly up to the cap, and above it the call gives up`() {
        assertEquals(Duration.ZERO, decide(AttemptFailure.Status(429, "0")).delay)
        assertEquals(Duration.ofMillis(1500), decide(AttemptFailure.Status(503, "1.5")).delay)
        assertEquals(Duration.ofSeconds(60), decide(AttemptFailure.Status(503, "60")).delay)
        val above = decide(AttemptFailure.Status(429, "60.001"))
        assertFalse(above.retry)
        assertTrue(above.reason.contains("cap"), above.reason)
        assertFalse(decide(AttemptFailure.Status(429, "99999999999999999999999")).retry)
        // unusable: ignored, so the backoff applies
        for (junk in listOf("soon", "-1", "1e3", "", "  ")) {
            assertEquals(Duration.ofMillis(500), decide(AttemptFailure.Status(503, junk)).delay, "'$junk'")
        }
    }

    @Test
    fun `Retry-After as an HTTP-date in each of the three forms`() {
        assertEquals(Duration.ofSeconds(30), RetryPolicy.parseRetryAfter("Wed, 21 Oct 2015 07:28:30 GMT", now))
        assertEquals(Duration.ZERO, RetryPolicy.parseRetryAfter("Wed, 21 Oct 2015 07:27:00 GMT", now))
        assertEquals(Duration.ofSeconds(5), RetryPolicy.parseRetryAfter("Wednesday, 21-Oct-15 07:28:05 GMT", now))
        assertEquals(Duration.ofSeconds(7), RetryPolicy.parseRetryAfter("Wed Oct 21 07:28:07 2015", now))
        assertEquals(Duration.ZERO, RetryPolicy.parseRetryAfter("Sun Nov  6 08:49:37 1994", now))
        assertNull(RetryPolicy.parseRetryAfter("Wed, 32 Oct 2015 07:28:30 GMT", now))
        assertNull(RetryPolicy.parseRetryAfter("Wed, 21 Okt 2015 07:28:30 GMT", now))
        // The weekday is not checked (JavaScript's Date.parse does not), so every SDK waits the same.
        assertEquals(Duration.ofSeconds(30), RetryPolicy.parseRetryAfter("Fri, 21 Oct 2015 07:28:30 GMT", now))
        assertEquals(Duration.ofSeconds(30), RetryPolicy.parseRetryAfter("21 Oct 2015 07:28:30 GMT", now))
        assertNull(RetryPolicy.parseRetryAfter(null, now))
        // A date two minutes ahead is above the 60 s cap.
        assertFalse(decide(AttemptFailure.Status(503, "Wed, 21 Oct 2015 07:30:00 GMT")).retry)
    }
}
