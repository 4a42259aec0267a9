package ai.guard.server

import com.sun.net.httpserver.HttpServer
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import ai.guard.server.models.CreateDsrRequestInput
import java.net.InetAddress
import java.net.InetSocketAddress
import java.net.ServerSocket
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/** The default transport against real sockets: a JDK HttpServer, a port that never answers, a closed port. */
class JdkHttpTransportTest {
    private lateinit var server: HttpServer
    private val seen = mutableListOf<Map<String, String>>()
    private val bodies = mutableListOf<String>()
    private val calls = AtomicInteger()
    private val release = CountDownLatch(1)

    @BeforeEach
    fun start() {
        server = HttpServer.create(InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0)
        server.createContext("/") { exchange ->
            calls.incrementAndGet()
            synchronized(seen) {
                seen += exchange.requestHeaders.entries.associate { it.key.lowercase() to it.value.joinToString(",") } +
                    mapOf(":method" to exchange.requestMethod, ":uri" to exchange.requestURI.toString())
                bodies += exchange.requestBody.readBytes().toString(Charsets.UTF_8)
            }
            val (status, body) = when (exchange.requestURI.path) {
                "/api/v1/org/acme" -> 200 to """{"orgId":"org_1","name":"Acme","slug":"acme"}"""
                "/api/v1/dsr" -> 201 to """{"requestId":"dsr_1","type":"erasure","status":"pending"}"""
                "/api/v1/org/hang" -> {
                    release.await(10, TimeUnit.SECONDS)
                    200 to "{}"
                }
                else -> 404 to """{"code":"NOT_FOUND","error":"no"}"""
            }
            val bytes = body.toByteArray()
            exchange.responseHeaders.add("x-request-id", "req_local")
            exchange.responseHeaders.add("content-type", "application/json")
            exchange.sendResponseHeaders(status, bytes.size.toLong())
            exchange.responseBody.use { it.write(bytes) }
        }
        server.executor = java.util.concurrent.Executors.newCachedThreadPool { r -> Thread(r).apply { isDaemon = true } }
        server.start()
    }

    @AfterEach
    fun stop() {
        release.countDown()
        server.stop(0)
    }

    private val base get() = "http://127.0.0.1:${server.address.port}"

    @Test
    fun `a real round trip - headers, bodies, errors with the x-request-id header`() {
        GuardClient.builder().baseUrl(base).apiKey("gk_test_1").accessToken("tok_1").build().use { client ->
            assertEquals("org_1", client.getOrganization("acme").orgId)
            client.createDsrRequest(CreateDsrRequestInput("org_1", "erasure"), "key-1")
            val error = assertThrows(GuardApiError::class.java) { client.getNotice("ntc_missing") }
            assertEquals(listOf(404, "NOT_FOUND", "req_local"), listOf(error.status, error.code, error.requestId))
        }
        val get = seen[0]
        assertEquals("GET", get[":method"])
        assertEquals("application/json", get["accept"])
        assertEquals("ai.guard:server-sdk/$SDK_VERSION", get["x-guard-sdk"])
        assertEquals("0", get["x-guard-retry-count"])
        assertNull(get["authorization"])
        assertNull(get["content-type"])
        assertNull(get["upgrade"], "plain http is spoken as HTTP/1.1, without an h2c upgrade")
        val post = seen[1]
        assertEquals("POST", post[":method"])
        assertEquals("Bearer tok_1", post["authorization"])
        assertEquals("application/json", post["content-type"])
        assertEquals("key-1", post["idempotency-key"])
        assertEquals("""{"organizationId":"org_1","type":"erasure"}""", bodies[1])
    }

    @Test
    fun `a server that never answers is a GuardTimeoutError after the attempt's timeout`() {
        GuardClient.builder().baseUrl(base).timeoutMs(300).maxRetries(1).sleeper { }.build().use { client ->
            val started = System.nanoTime()
            assertThrows(GuardTimeoutError::class.java) { client.getOrganization("hang") }
            val elapsedMs = (System.nanoTime() - started) / 1_000_000
            // The hanging handler answers only after 10 s, so anything well below that was our timeout.
            assertTrue(elapsedMs in 550..9_000, "two attempts of 300 ms took $elapsedMs ms")
        }
        assertEquals(2, calls.get(), "the timeout was retried once (a GET is safe to repeat)")
    }

    @Test
    fun `a refused connection is a GuardConnectionError`() {
        val closedPort = ServerSocket(0, 1, InetAddress.getLoopbackAddress()).use { it.localPort }
        GuardClient.builder().baseUrl("http://127.0.0.1:$closedPort").maxRetries(0).build().use { client ->
            val error = assertThrows(GuardConnectionError::class.java) { client.getOrganization("acme") }
            assertTrue(error.message!!.startsWith("GET http://127.0.0.1:$closedPort/api/v1/org/acme failed"), error.message)
        }
    }

    @Test
    fun `cancelling an async call interrupts a request in flight`() {
        var worker: Thread? = null
        val executor = java.util.concurrent.Executor { task -> worker = Thread(task).apply { start() } }
        GuardClient.builder().baseUrl(base).executor(executor).build().use { client ->
            val future = client.async { it.getOrganization("hang") }
            while (calls.get() == 0) Thread.sleep(10)
            assertTrue(future.cancel(true))
            assertThrows(java.util.concurrent.CancellationException::class.java) { future.join() }
            // The server holds its answer for 10 s: a worker that ends well before was interrupted.
            val thread = checkNotNull(worker)
            thread.join(5_000)
            assertTrue(!thread.isAlive, "the worker still waits for the response")
        }
        assertEquals(1, calls.get(), "no retry after a cancel")
    }

    @Test
    fun `an interrupted thread blocked on a response gets GuardAbortError promptly`() {
        GuardClient.builder().baseUrl(base).build().use { client ->
            val caller = Thread.currentThread()
            val interrupter = Thread {
                while (calls.get() == 0) Thread.sleep(10)
                Thread.sleep(50)
                caller.interrupt()
            }.apply { start() }
            assertThrows(GuardAbortError::class.java) { client.getOrganization("hang") }
            assertTrue(Thread.interrupted())
            interrupter.join()
        }
        assertEquals(1, calls.get())
    }
}
