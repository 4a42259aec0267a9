package ai.guard.server

import ai.guard.server.models.GateDecisionsQuery
import ai.guard.server.models.PageQuery
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestFactory

private const val ORG = "org_9f2c4a7b1d3e"
private const val DSR = """{"requestId":"dsr_%d","type":"erasure","status":"pending","dueAt":1,"requestDetails":"x"}"""

/** Paged lists (contract 1.8.0): `limit` and `cursor` on the wire, `nextCursor` back, and the lazy `iterate*` walkers. */
class PagingTest {
    private fun client(transport: FakeTransport) = fakeClient(transport) { accessToken("tok_principal") }

    private fun dsrPage(ids: List<Int>, next: String?) =
        answer(200, """{"requests":[${ids.joinToString(",") { DSR.format(it) }}],"nextCursor":${next?.let { "\"$it\"" } ?: "null"}}""")

    private fun queries(transport: FakeTransport): List<String?> = transport.requests.map { it.uri.rawQuery }

    /** Each walker over three pages (2 + 1 + 0 items): the items in order, and the cursors sent back. */
    private class Walker(val name: String, val field: String, val extra: String, val walk: (GuardClient) -> Iterable<*>)

    private val walkers = listOf(
        Walker("iterateNotices", "notices", "", { it.iterateNotices(ORG, PageQuery(limit = 2)) }),
        Walker("iterateDsrRequests", "requests", "", { it.iterateDsrRequests(PageQuery(limit = 2)) }),
        Walker("iterateGrievances", "grievances", "", { it.iterateGrievances(PageQuery(limit = 2)) }),
        Walker("iterateGateDecisions", "decisions", "", { it.iterateGateDecisions(GateDecisionsQuery(limit = 2)) }),
        Walker("iterateGateAlerts", "alerts", ""","windowMs":1,"denyThreshold":3""", { it.iterateGateAlerts(PageQuery(limit = 2)) }),
        Walker("iterateDueRetentions", "due", "", { it.iterateDueRetentions(PageQuery(limit = 2)) }),
        Walker("iterateBreaches", "breaches", "", { it.iterateBreaches(PageQuery(limit = 2)) }),
        Walker("iterateCrossBorderTransfers", "transfers", "", { it.iterateCrossBorderTransfers(PageQuery(limit = 2)) }),
    )

    private val items = mapOf(
        "notices" to """{"_id":"ntc_%d","organizationId":"o","version":1,"itemized":[],"content":{},"status":"published"}""",
        "requests" to DSR,
        "grievances" to """{"grievanceId":"grv_%d","subject":"s","description":"d","status":"open","dueAt":1}""",
        "decisions" to """{"decisionId":"gdc_%d","consentId":"c","apiKeyId":"k","decision":"allow","reason":"consent_active","decidedAt":1}""",
        "alerts" to """{"consentId":"cns_%d","denyCount":3,"firstDeniedAt":1,"lastDeniedAt":2}""",
        "due" to """{"scheduledErasureId":"ser_%d","userId":"u","scheduledFor":1,"reason":"r"}""",
        "breaches" to """{"breachId":"brc_%d","description":"d","discoveredAt":1,"status":"reported_user_pending"}""",
        "transfers" to """{"activityId":"rpa_%d","activityName":"a","purpose":"p","dataCategories":[],"legalBasis":"consent","createdAt":1}""",
    )

    @TestFactory
    fun everyWalkerFetchesPageAfterPage(): List<DynamicTest> = walkers.map { walker ->
        DynamicTest.dynamicTest(walker.name) {
            val item = items.getValue(walker.field)
            fun page(ids: List<Int>, next: String?) = answer(
                200,
                """{"${walker.field}":[${ids.joinToString(",") { item.format(it) }}]${walker.extra},"nextCursor":${next?.let { "\"$it\"" } ?: "null"}}""",
            )
            val transport = FakeTransport(page(listOf(1, 2), "c1"), page(listOf(3), "c2"), page(emptyList(), null))
            val walked = walker.walk(client(transport)).toList()
            assertEquals(3, walked.size)
            assertEquals(listOf("limit=2", "limit=2&cursor=c1", "limit=2&cursor=c2"), queries(transport))
        }
    }

    @Test
    fun `a list call sends limit and cursor and returns nextCursor`() {
        val transport = FakeTransport(dsrPage(listOf(1), "next one"))
        val page = client(transport).listDsrRequests(PageQuery(limit = 25, cursor = "a/b"))
        assertEquals("next one", page.nextCursor)
        assertEquals("limit=25&cursor=a%2Fb", queries(transport).single())
    }

    @Test
    fun `an answer without nextCursor (an older server) is one last page`() {
        val transport = FakeTransport(answer(200, """{"requests":[${DSR.format(1)}]}"""))
        val client = client(transport)
        assertNull(client.listDsrRequests().nextCursor)
        transport.enqueue(answer(200, """{"requests":[${DSR.format(1)}]}"""))
        assertEquals(1, client.iterateDsrRequests().toList().size)
        assertEquals(2, transport.requests.size)
    }

    @Test
    fun `the 1_6 call forms still compile and ask for the first page`() {
        val transport = FakeTransport(dsrPage(emptyList(), null), dsrPage(emptyList(), null))
        val client = client(transport)
        client.listDsrRequests(RequestOptions.NONE)
        client.listDsrRequests()
        assertEquals(listOf<String?>(null, null), queries(transport))
    }

    @Test
    fun `walking is lazy, starts at a given cursor and can be repeated`() {
        val transport = FakeTransport(dsrPage(listOf(1, 2), "c1"))
        val walk = client(transport).iterateDsrRequests(PageQuery(cursor = "start"))
        assertTrue(transport.requests.isEmpty(), "nothing is fetched before iteration")
        val first = walk.iterator()
        assertEquals("dsr_1", first.next().requestId)
        assertEquals(listOf<String?>("cursor=start"), queries(transport))
        transport.enqueue(dsrPage(listOf(1), null))
        assertEquals(listOf("dsr_1"), walk.map { it.requestId })
        assertEquals("cursor=start", queries(transport)[1])
    }

    @Test
    fun `an error on a later page reaches the caller`() {
        val refused = answer(400, """{"error":"cursor is not valid","code":"VALIDATION_ERROR","field":"cursor"}""")
        val transport = FakeTransport(dsrPage(listOf(1), "c1"), refused)
        val iterator = client(transport).iterateDsrRequests().iterator()
        assertEquals("dsr_1", iterator.next().requestId)
        val error = assertThrows(GuardApiError::class.java) { iterator.next() }
        assertEquals("cursor", error.field)
    }
}
