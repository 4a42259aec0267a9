package ai.guard.server.http

import java.io.IOException
import java.net.URI
import java.time.Duration

/** One HTTP request as the client hands it to a transport: everything already encoded. */
public class TransportRequest(
    public val method: String,
    public val uri: URI,
    /** Header names as the SDK writes them; at most one value each. */
    public val headers: Map<String, String>,
    /** UTF-8 JSON, or null for a request without a body. */
    public val body: ByteArray?,
) {
    override fun toString(): String = "$method $uri"
}

/** One HTTP response: any status (the client decides what a non-2xx means), the body fully read. */
public class TransportResponse(
    public val status: Int,
    /** Header names in lower case. */
    public val headers: Map<String, List<String>>,
    public val body: ByteArray,
) {
    /** The first value of [name] (case-insensitive), or null. */
    public fun header(name: String): String? = headers[name.lowercase()]?.firstOrNull()
}

/**
 * The swappable part of the client: sends one attempt and returns whatever came back. Retries,
 * backoff, headers, credentials and errors all live above it, in the client, so a transport stays
 * small (the default, [JdkHttpTransport], wraps `java.net.http.HttpClient`; tests inject a fake).
 *
 * Contract for implementations:
 * - return the response for every status, 2xx or not;
 * - throw an [IOException] when no response came back (refused, reset, DNS, TLS) and a
 *   [java.net.http.HttpTimeoutException] or [java.net.SocketTimeoutException] when [timeout] ran out
 *   first; the timeout covers the whole attempt, body included;
 * - throw [InterruptedException] when the calling thread is interrupted, promptly.
 */
public interface HttpTransport : AutoCloseable {
    @Throws(IOException::class, InterruptedException::class)
    public fun execute(request: TransportRequest, timeout: Duration): TransportResponse

    /** Releases what the transport holds. The default holds nothing. */
    override fun close() {}
}
