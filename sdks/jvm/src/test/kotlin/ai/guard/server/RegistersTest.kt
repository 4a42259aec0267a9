package ai.guard.server

import ai.guard.server.models.BreachStatuses
import ai.guard.server.models.ErasureExecutionInput
import ai.guard.server.models.PageQuery
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Test

private const val DUE = """{"scheduledErasureId":"ser_%d","userId":"user-%d","scheduledFor":1700000000000,"reason":"Marketing: 3 years since the last interaction","preNotificationSentAt":1699800000000}"""
private const val BREACH = """{"breachId":"brc_1","description":"Backup bucket readable","discoveredAt":1700000000000,"status":"reported_board_pending","boardReportDueAt":1700259200000}"""
private const val TRANSFER = """{"activityId":"rpa_1","activityName":"Support tickets","purpose":"Customer support","dataCategories":["email"],"legalBasis":"consent","createdAt":1700000000000,"destinationCountries":["SG"],"recipients":[{"name":"Helpdesk Co","role":"processor","country":"SG"}],"storageLocation":"Singapore"}"""

/** The registers' partner routes (contract 2.15.0, tag `registers`) on a scripted transport. */
class RegistersTest {
    private fun calls(transport: FakeTransport): List<String> =
        transport.requests.indices.map { i ->
            val request = transport.requests[i]
            "${request.method} ${request.uri.rawPath}${request.uri.rawQuery?.let { "?$it" } ?: ""} ${transport.header(i, "authorization")}"
        }

    @Test
    fun `each register list calls its route with the service key and reads its typed page`() {
        val transport = FakeTransport(
            answer(200, """{"due":[${DUE.format(1, 1)}],"nextCursor":"d2"}"""),
            answer(200, """{"breaches":[$BREACH],"nextCursor":null}"""),
            answer(200, """{"transfers":[$TRANSFER],"nextCursor":null}"""),
        )
        val client = fakeClient(transport)
        val due = client.listDueRetentions(PageQuery(limit = 1, cursor = "d1"))
        assertEquals("d2", due.nextCursor)
        assertEquals("user-1", due.due.single().userId)
        assertEquals(1_699_800_000_000L, due.due.single().preNotificationSentAt)
        val breach = client.listBreaches().breaches.single()
        assertEquals(BreachStatuses.REPORTED_BOARD_PENDING, breach.status)
        assertEquals(1_700_259_200_000L, breach.boardReportDueAt)
        assertNull(breach.reportedToUserAt)
        val transfer = client.listCrossBorderTransfers(PageQuery(cursor = "a/b")).transfers.single()
        assertEquals(listOf("SG"), transfer.destinationCountries)
        assertEquals("processor", transfer.recipients!!.single().role)
        assertEquals(
            listOf(
                "GET /api/v1/retention/due?limit=1&cursor=d1 Bearer gk_test_key",
                "GET /api/v1/breaches Bearer gk_test_key",
                "GET /api/v1/cross-border/transfers?cursor=a%2Fb Bearer gk_test_key",
            ),
            calls(transport),
        )
    }

    @Test
    fun `the register walkers follow nextCursor to the end`() {
        val transport = FakeTransport(
            answer(200, """{"due":[${DUE.format(1, 1)},${DUE.format(2, 2)}],"nextCursor":"p2"}"""),
            answer(200, """{"due":[${DUE.format(3, 3)}],"nextCursor":null}"""),
            answer(200, """{"breaches":[$BREACH],"nextCursor":null}"""),
            answer(200, """{"transfers":[],"nextCursor":null}"""),
        )
        val client = fakeClient(transport)
        assertEquals(listOf("ser_1", "ser_2", "ser_3"), client.iterateDueRetentions(PageQuery(limit = 2)).map { it.scheduledErasureId })
        assertEquals(listOf("brc_1"), client.iterateBreaches().map { it.breachId })
        assertEquals(emptyList<Any>(), client.iterateCrossBorderTransfers(PageQuery(limit = 50)).toList())
        assertEquals(
            listOf(
                "GET /api/v1/retention/due?limit=2 Bearer gk_test_key",
                "GET /api/v1/retention/due?limit=2&cursor=p2 Bearer gk_test_key",
                "GET /api/v1/breaches Bearer gk_test_key",
                "GET /api/v1/cross-border/transfers?limit=50 Bearer gk_test_key",
            ),
            calls(transport),
        )
    }

    @Test
    fun `a register read is retried after a 503, and a capability that is off is NOT_FOUND`() {
        val sleeper = RecordingSleeper()
        val transport = FakeTransport(
            answer(503),
            answer(200, """{"breaches":[],"nextCursor":null}"""),
            answer(404, """{"code":"NOT_FOUND","error":"Not found"}"""),
        )
        val client = fakeClient(transport, sleeper)
        assertEquals(emptyList<Any>(), client.listBreaches().breaches)
        assertEquals(1, sleeper.delays.size)
        val error = assertThrows(GuardApiError::class.java) { client.listCrossBorderTransfers() }
        assertEquals(404, error.status)
        assertEquals("NOT_FOUND", error.code)
        assertEquals(listOf("0", "1", "0"), transport.requests.indices.map { transport.header(it, "x-guard-retry-count") })
    }

    @Test
    fun `without an API key the register calls fail before any request`() {
        val transport = FakeTransport()
        val client = GuardClient.builder().baseUrl("https://guard.test").transport(transport).sleeper(RecordingSleeper()).build()
        assertThrows(GuardMissingCredentialError::class.java) { client.listDueRetentions() }
        assertThrows(GuardMissingCredentialError::class.java) { client.listBreaches() }
        assertThrows(GuardMissingCredentialError::class.java) { client.iterateCrossBorderTransfers().toList() }
        assertThrows(GuardMissingCredentialError::class.java) { client.confirmErasureExecuted("ser_1") }
        assertEquals(0, transport.requests.size)
    }

    @Test
    fun `confirmErasureExecuted posts executedAt, or an empty body for the server's now`() {
        val executed = """{"scheduledErasureId":"ser_1","status":"executed","executedAt":1700000100000}"""
        val transport = FakeTransport(answer(200, executed), answer(200, executed))
        val client = fakeClient(transport)
        val result = client.confirmErasureExecuted("ser_1", ErasureExecutionInput(1_700_000_100_000))
        assertEquals("executed", result.status)
        assertEquals(1_700_000_100_000L, result.executedAt)
        client.confirmErasureExecuted("ser/2", RequestOptions.NONE)
        assertEquals(
            listOf(
                "POST /api/v1/retention/erasures/ser_1/executed Bearer gk_test_key",
                "POST /api/v1/retention/erasures/ser%2F2/executed Bearer gk_test_key",
            ),
            calls(transport),
        )
        assertEquals(listOf("""{"executedAt":1700000100000}""", "{}"), listOf(transport.body(0), transport.body(1)))
        assertEquals(listOf<String?>(null, null), transport.requests.indices.map { transport.header(it, "idempotency-key") })
    }

    @Test
    fun `confirmErasureExecuted is retried, and 409 and 404 are not`() {
        val sleeper = RecordingSleeper()
        val transport = FakeTransport(
            answer(503),
            answer(200, """{"scheduledErasureId":"ser_1","status":"executed","executedAt":5}"""),
            answer(409, """{"code":"CONFLICT","error":"The erasure was cancelled"}"""),
            answer(404, """{"code":"NOT_FOUND","error":"No scheduled erasure"}"""),
        )
        val client = fakeClient(transport, sleeper)
        assertEquals(5L, client.confirmErasureExecuted("ser_1").executedAt)
        assertEquals(1, sleeper.delays.size)
        assertEquals("CONFLICT", assertThrows(GuardApiError::class.java) { client.confirmErasureExecuted("ser_2") }.code)
        assertEquals(404, assertThrows(GuardApiError::class.java) { client.confirmErasureExecuted("ser_9") }.status)
        assertEquals(4, transport.requests.size)
    }
}
