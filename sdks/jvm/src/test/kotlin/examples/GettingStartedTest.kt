package examples

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable

/**
 * docs/getting-started.md's Kotlin walkthrough ([gettingStarted]) against a running Guard with the
 * demo organisation: only when GUARD_GETTING_STARTED_URL names one (with GUARD_KEY, and optionally
 * WEBHOOK_SECRET and WEBHOOK_PORT), so `mvn test` skips it otherwise. The walkthrough throws on any
 * failed call; its output goes to the console.
 */
class GettingStartedTest {
    @Test
    @EnabledIfEnvironmentVariable(named = "GUARD_GETTING_STARTED_URL", matches = ".+")
    fun `the getting-started walkthrough runs against the demo`() {
        gettingStarted(
            guardUrl = System.getenv("GUARD_GETTING_STARTED_URL"),
            apiKey = System.getenv("GUARD_KEY") ?: error("GUARD_KEY: the demo's service key"),
            webhookSecret = System.getenv("WEBHOOK_SECRET"),
            webhookPort = System.getenv("WEBHOOK_PORT")?.toInt() ?: 9099,
        )
    }
}
