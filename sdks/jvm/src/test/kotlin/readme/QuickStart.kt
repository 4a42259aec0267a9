package readme

import ai.guard.server.GuardApiError
import ai.guard.server.GuardClient
import ai.guard.server.GuardErrorCodes
import ai.guard.server.RequestOptions
import ai.guard.server.hasConsent
import ai.guard.server.models.ConsentStatusQuery
import ai.guard.server.models.CreateDsrRequestInput
import ai.guard.server.models.DsrTypes

fun main() {
    GuardClient.builder()
        .baseUrl("https://guard.example.com")
        .apiKey(System.getenv("GUARD_API_KEY")) // service key: server-side only, never in an app
        .build()
        .use { guard ->
            val org = guard.getOrganization("acme-health")

            // Mint a short-lived token for your user; the client keeps it for principal calls,
            // and you hand token.accessToken to your app's client SDK.
            val token = guard.brokerToken("user-42", email = "asha@example.com")
            val dsr = guard.createDsrRequest(CreateDsrRequestInput(org.orgId, DsrTypes.ERASURE, "Please erase my account."))
            println("filed ${dsr.requestId}, due ${dsr.dueAt}")

            // Gate your own processing on consent.
            val status = guard.getConsentStatus(ConsentStatusQuery.byExternalId("user-42"))
            if (hasConsent(status.consents, "Marketing")) println("ok to send offers")

            try {
                guard.getConsent("cns_0000000000", RequestOptions.builder().timeoutMs(2_000).maxRetries(0).build())
            } catch (e: GuardApiError) {
                if (e.code == GuardErrorCodes.NOT_FOUND) println("no such consent (request ${e.requestId})") else throw e
            }
        }
}
