package ai.guard.server

// The error tree the whole SDK family shares (conformance/README.md "Errors"). The names end in
// "Error" like their Node and Python twins, so a log line reads the same in every language; they are
// unchecked exceptions, so Java callers catch only what they care about.

/** Base class of every exception this SDK throws on purpose. */
public abstract class GuardError internal constructor(message: String, cause: Throwable? = null) :
    RuntimeException(message, cause)

/**
 * The server answered with a non-2xx status. Branch on [code] (a catalog code, see [GuardErrorCodes]),
 * never on [message]. A code this release does not know is kept as sent: a newer server may add codes.
 */
public class GuardApiError(
    public val status: Int,
    public val code: String,
    message: String,
    /** Quote it when reporting a problem: the server logged the failure under this id. */
    public val requestId: String?,
    /** For `VALIDATION_ERROR`, the offending field when the server could name it. */
    public val field: String? = null,
    /** Response headers, names in lower case. */
    public val headers: Map<String, List<String>> = emptyMap(),
) : GuardError(message)

/** No response came back: the connection was refused or reset, DNS failed, TLS failed. */
public class GuardConnectionError(message: String, cause: Throwable? = null) : GuardError(message, cause)

/**
 * An attempt outlived its timeout. A sibling of [GuardConnectionError], not a subclass, so a caller can
 * tell a slow server from an unreachable one.
 */
public class GuardTimeoutError(message: String, cause: Throwable? = null) : GuardError(message, cause)

/**
 * The caller stopped the call: the calling thread was interrupted (its interrupt flag is set again
 * when this is thrown), or the future of [GuardClient.async] was cancelled. Never retried.
 */
public class GuardAbortError(message: String, cause: Throwable? = null) : GuardError(message, cause)

/** The call needs a credential the client does not hold. Thrown before any network I/O. */
public class GuardMissingCredentialError(
    /** `apiKey` or `accessToken`. */
    public val credential: String,
) : GuardError(
    if (credential == CREDENTIAL_API_KEY) {
        "This call needs the service API key: GuardClient.builder().baseUrl(..).apiKey(..).build()"
    } else {
        "This call needs a principal access token: call brokerToken(externalId) or setAccessToken(token) first"
    },
) {
    public companion object {
        public const val CREDENTIAL_API_KEY: String = "apiKey"
        public const val CREDENTIAL_ACCESS_TOKEN: String = "accessToken"
    }
}

/** A webhook secret that cannot key a signature: a configuration mistake, not a forged delivery. */
public class GuardWebhookSecretError(message: String) : GuardError(message)

/**
 * The catalog codes `/api/v1` returns (contract/errors.json), for comparisons without string typos.
 * [GuardApiError.code] is a plain String because a newer server may send a code not listed here.
 */
public object GuardErrorCodes {
    public const val VALIDATION_ERROR: String = "VALIDATION_ERROR"
    public const val NOTICE_NOT_PUBLISHED: String = "NOTICE_NOT_PUBLISHED"
    public const val ALREADY_CONSENTED: String = "ALREADY_CONSENTED"
    public const val NOT_ASSOCIATED_WITH_ORG: String = "NOT_ASSOCIATED_WITH_ORG"
    public const val INVALID_STATUS_TRANSITION: String = "INVALID_STATUS_TRANSITION"
    public const val UNAUTHORIZED: String = "UNAUTHORIZED"
    public const val MINOR_TRACKING_BLOCKED: String = "MINOR_TRACKING_BLOCKED"
    public const val NOT_FOUND: String = "NOT_FOUND"
    public const val SDK_VERSION_UNSUPPORTED: String = "SDK_VERSION_UNSUPPORTED"
    public const val RATE_LIMITED: String = "RATE_LIMITED"
    public const val FORBIDDEN: String = "FORBIDDEN"
    public const val CONFLICT: String = "CONFLICT"
    public const val PAYLOAD_TOO_LARGE: String = "PAYLOAD_TOO_LARGE"
    public const val UNSUPPORTED_MEDIA_TYPE: String = "UNSUPPORTED_MEDIA_TYPE"
    public const val INTERNAL_ERROR: String = "INTERNAL_ERROR"
    public const val UNAVAILABLE: String = "UNAVAILABLE"

    /** The code of an error body that carries none (a proxy's error page, an old server). */
    @JvmStatic
    public fun forStatus(status: Int): String = when (status) {
        // Contract 1.6.0's clients mapped every code-less body to VALIDATION_ERROR; a 400 still does.
        400 -> VALIDATION_ERROR
        401 -> UNAUTHORIZED
        403 -> FORBIDDEN
        404 -> NOT_FOUND
        409 -> CONFLICT
        413 -> PAYLOAD_TOO_LARGE
        415 -> UNSUPPORTED_MEDIA_TYPE
        426 -> SDK_VERSION_UNSUPPORTED
        429 -> RATE_LIMITED
        500 -> INTERNAL_ERROR
        else -> if (status >= 500) UNAVAILABLE else VALIDATION_ERROR
    }
}
