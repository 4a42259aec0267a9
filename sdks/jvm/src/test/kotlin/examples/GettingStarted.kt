package examples

import ai.guard.server.GuardClient
import ai.guard.server.models.CreateDsrRequestInput
import ai.guard.server.models.DsrTypes
import ai.guard.server.models.RecordConsentInput
import ai.guard.server.verifyStandardWebhook
import com.sun.net.httpserver.HttpServer
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import java.net.InetSocketAddress
import java.time.Instant
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit

// docs/getting-started.md, steps 3 to 8, with the Kotlin/JVM server SDK (ai.guard:server-sdk): a
// principal token, a consent, the Consent Gate, the withdrawal (and its webhook delivery, verified),
// a DSR. With WEBHOOK_SECRET (and WEBHOOK_PORT) from step 6 it also listens for the withdrawal's
// delivery and verifies its signature; without them it skips that part.
fun main() = gettingStarted(
    guardUrl = System.getenv("GUARD") ?: error("Set GUARD, the service's address"),
    apiKey = System.getenv("GUARD_KEY") ?: error("Set GUARD_KEY, its service key"),
    webhookSecret = System.getenv("WEBHOOK_SECRET"),
    webhookPort = System.getenv("WEBHOOK_PORT")?.toInt() ?: 9099,
)

fun gettingStarted(guardUrl: String, apiKey: String, webhookSecret: String?, webhookPort: Int) {
    val (externalId, email) = "user-45" to "kabir@example.com"
    GuardClient.builder().baseUrl(guardUrl).apiKey(apiKey).build().use { guard ->
        // 2. The organisation and its published notice (public reads).
        val org = guard.getOrganization("demo")
        val noticeId = guard.getNotices(org.orgId).notices.first().noticeId!!
        println("organisation ${org.orgId}, notice $noticeId")

        // 3. A principal token for your signed-in user; naming the email lets recordConsent find them.
        // The client keeps the token for principal calls (step 8); hand accessToken to your app.
        val token = guard.brokerToken(externalId, email = email)
        println("principal token: ${token.accessToken.take(12)}...")

        // 4. Record a consent. The SDK sends an Idempotency-Key and reuses it if it retries.
        val consent = guard.recordConsent(RecordConsentInput(email, noticeId, "Marketing", listOf("email")))
        println("consent ${consent.consentId}")

        // 5. Ask the Consent Gate before processing: allow means go ahead.
        println(guard.verifyConsent(consent.consentId).decision) // allow

        // 6. Hear about withdrawals: a receiver that verifies each delivery before trusting it.
        val delivered = CompletableFuture<String>()
        val receiver = webhookSecret?.let { secret ->
            HttpServer.create(InetSocketAddress("127.0.0.1", webhookPort), 0).apply {
                createContext("/") { exchange ->
                    val rawBody = exchange.requestBody.readAllBytes() // the bytes as received
                    val check = verifyStandardWebhook(secret, rawBody, { name: String -> exchange.requestHeaders.getFirst(name) })
                    exchange.sendResponseHeaders(if (check.isValid) 204 else 401, -1) // 2xx quickly: Guard retries the rest
                    exchange.close()
                    if (!check.isValid) return@createContext println("rejected a delivery: ${check.reason}")
                    val event = Json.parseToJsonElement(rawBody.decodeToString()).jsonObject
                    val payload = event.getValue("payload").jsonObject
                    if (payload["consentId"]?.jsonPrimitive?.content == consent.consentId) { // not an earlier run's
                        delivered.complete("verified ${event.getValue("eventType").jsonPrimitive.content} for ${consent.consentId}")
                    }
                }
                start()
            }
        }

        // 7. The principal withdraws: from now on the gate denies.
        println(guard.withdrawConsent(consent.consentId).status) // withdrawn
        println(guard.verifyConsent(consent.consentId).decision) // deny
        if (receiver != null) {
            try {
                println(delivered.get(15, TimeUnit.SECONDS))
            } finally {
                receiver.stop(0)
            }
        } else {
            println("no WEBHOOK_SECRET: skipped the webhook delivery")
        }

        // 8. A rights request, with the principal token the client kept from step 3.
        val dsr = guard.createDsrRequest(CreateDsrRequestInput(org.orgId, DsrTypes.SUMMARY))
        println("DSR ${dsr.requestId} is ${dsr.status}, due ${Instant.ofEpochMilli(dsr.dueAt!!)}")
    }
}
