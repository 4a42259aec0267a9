package ai.guard.server.http

import java.io.IOException
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.net.http.HttpTimeoutException
import java.time.Duration
import java.util.concurrent.CancellationException
import java.util.concurrent.ExecutionException
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException

/**
 * The default transport: `java.net.http.HttpClient` (JDK 11+), so the SDK needs no HTTP library.
 * Redirects are not followed (a 3xx is an answer like any other non-2xx). Plain `http://` is spoken as
 * HTTP/1.1 rather than via an h2c upgrade; `https://` negotiates HTTP/2 where the server offers it.
 */
public class JdkHttpTransport @JvmOverloads constructor(
    private val client: HttpClient = HttpClient.newBuilder()
        .followRedirects(HttpClient.Redirect.NEVER)
        .build(),
    /** Close [client] in [close] (JDK 21+ clients are closeable); false when the caller shares it. */
    private val ownsClient: Boolean = true,
) : HttpTransport {

    override fun execute(request: TransportRequest, timeout: Duration): TransportResponse {
        val builder = HttpRequest.newBuilder(request.uri).timeout(timeout)
        if (request.uri.scheme.equals("http", ignoreCase = true)) builder.version(HttpClient.Version.HTTP_1_1)
        for ((name, value) in request.headers) builder.header(name, value)
        val publisher = request.body?.let { HttpRequest.BodyPublishers.ofByteArray(it) }
            ?: HttpRequest.BodyPublishers.noBody()
        builder.method(request.method, publisher)

        // sendAsync + a bounded get: the request timeout alone stops at the response headers, and the
        // attempt's budget must cover the body as well.
        val pending = client.sendAsync(builder.build(), HttpResponse.BodyHandlers.ofByteArray())
        val response = try {
            pending.get(timeout.toNanos(), TimeUnit.NANOSECONDS)
        } catch (e: TimeoutException) {
            pending.cancel(true)
            throw HttpTimeoutException("no complete response within ${timeout.toMillis()} ms").apply { initCause(e) }
        } catch (e: InterruptedException) {
            pending.cancel(true)
            throw e
        } catch (e: CancellationException) {
            throw IOException("the request was cancelled", e)
        } catch (e: ExecutionException) {
            val cause = e.cause
            throw if (cause is IOException) cause else IOException(cause?.message ?: "request failed", cause)
        }
        val headers = HashMap<String, List<String>>()
        for ((name, values) in response.headers().map()) {
            headers.merge(name.lowercase(), values) { a, b -> a + b }
        }
        return TransportResponse(response.statusCode(), headers, response.body() ?: ByteArray(0))
    }

    override fun close() {
        // HttpClient became AutoCloseable in JDK 21; on 11-20 it is released when unreachable.
        if (ownsClient) (client as Any as? AutoCloseable)?.close()
    }
}
