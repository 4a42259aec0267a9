package ai.guard.server

import java.time.Duration
import java.util.TreeMap

/**
 * Per-request options, the trailing optional argument of every client method: they override the
 * client's defaults for one call. Immutable; build with [builder] (or [toBuilder] to derive one).
 *
 * ```kotlin
 * client.getNotices(orgId, RequestOptions.builder().timeoutMs(2_000).maxRetries(0).build())
 * ```
 */
public class RequestOptions private constructor(
    /** Per attempt. Null: the client's (default 30 s). */
    public val timeout: Duration?,
    /** Null: the client's (default 2). */
    public val maxRetries: Int?,
    /** For create calls. Null: the SDK mints one per logical call and reuses it on every retry. */
    public val idempotencyKey: String?,
    /** Merged over the client's headers (names case-insensitive). */
    public val headers: Map<String, String>,
) {
    public fun toBuilder(): Builder = Builder().also { b ->
        b.timeout = timeout
        b.maxRetries = maxRetries
        b.idempotencyKey = idempotencyKey
        b.headers.putAll(headers)
    }

    override fun toString(): String =
        "RequestOptions(timeout=$timeout, maxRetries=$maxRetries, idempotencyKey=$idempotencyKey, headers=${headers.keys})"

    public class Builder internal constructor() {
        internal var timeout: Duration? = null
        internal var maxRetries: Int? = null
        internal var idempotencyKey: String? = null
        internal val headers: MutableMap<String, String> = TreeMap(String.CASE_INSENSITIVE_ORDER)

        /** Per attempt; must be positive. */
        public fun timeout(timeout: Duration): Builder = apply {
            require(!timeout.isNegative && !timeout.isZero) { "timeout must be positive, got $timeout" }
            this.timeout = timeout
        }

        public fun timeoutMs(timeoutMs: Long): Builder = timeout(Duration.ofMillis(timeoutMs))

        /** Retries after the first attempt; 0 disables retrying. */
        public fun maxRetries(maxRetries: Int): Builder = apply {
            require(maxRetries >= 0) { "maxRetries must be >= 0, got $maxRetries" }
            this.maxRetries = maxRetries
        }

        /** Reuse one key for every call that must not act twice (the contract keeps replays 24 hours). */
        public fun idempotencyKey(idempotencyKey: String): Builder = apply {
            require(idempotencyKey.length in 1..255) { "idempotencyKey must be 1-255 characters" }
            this.idempotencyKey = idempotencyKey
        }

        /** Adds one header; the SDK's own headers (`Authorization`, `X-Guard-SDK`, `X-Guard-Retry-Count`) are refused. */
        public fun header(name: String, value: String): Builder = apply {
            checkHeaderName(name)
            headers[name] = value
        }

        public fun headers(headers: Map<String, String>): Builder = apply {
            for ((name, value) in headers) header(name, value)
        }

        public fun build(): RequestOptions =
            RequestOptions(timeout, maxRetries, idempotencyKey, TreeMap<String, String>(String.CASE_INSENSITIVE_ORDER).apply { putAll(headers) })
    }

    public companion object {
        /** No overrides: the client's defaults. */
        @JvmField
        public val NONE: RequestOptions = Builder().build()

        @JvmStatic
        public fun builder(): Builder = Builder()

        /** Shorthand for options that only carry an idempotency key. */
        @JvmStatic
        public fun idempotencyKey(key: String): RequestOptions = Builder().idempotencyKey(key).build()
    }
}

/** Headers the SDK writes itself on every attempt; a caller's value would be silently wrong, so it is refused. */
@get:JvmSynthetic
internal val SDK_OWNED_HEADERS: Set<String> = setOf("authorization", "x-guard-sdk", RetryPolicy.RETRY_COUNT_HEADER.lowercase())

@JvmSynthetic
internal fun checkHeaderName(name: String) {
    require(name.isNotEmpty()) { "header name must not be empty" }
    require(name.lowercase() !in SDK_OWNED_HEADERS) {
        "the SDK sets $name itself (credentials go in the builder's apiKey/accessToken)"
    }
}
