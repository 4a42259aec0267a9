package ai.guard.server

import ai.guard.server.http.HttpTransport
import ai.guard.server.http.TransportRequest
import ai.guard.server.http.TransportResponse
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonPrimitive
import java.io.IOException
import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.Paths
import java.time.Clock
import java.time.Duration
import java.time.Instant
import java.time.ZoneOffset

/** The repository root: Surefire passes it; a plain `../..` from sdks/jvm is the fallback. */
val repoRoot: Path = Paths.get(System.getProperty("guard.repoRoot") ?: "../..").toAbsolutePath().normalize()

fun readJson(relative: String): JsonElement = Json.parseToJsonElement(Files.readString(repoRoot.resolve(relative)))

val JsonElement.str: String get() = jsonPrimitive.content

fun JsonObject.optString(name: String): String? = (this[name] as? JsonPrimitive)?.takeIf { it.isString }?.content

/** One scripted answer of [FakeTransport]. */
sealed class Scripted {
    data class Answer(val status: Int, val body: String = "", val headers: Map<String, String> = emptyMap()) : Scripted()
    data class Fail(val error: Exception) : Scripted()
}

fun answer(status: Int, body: String = "", vararg headers: Pair<String, String>) = Scripted.Answer(status, body, headers.toMap())

/** Records every request and answers from a script; an exhausted script is a test failure. */
class FakeTransport(vararg script: Scripted) : HttpTransport {
    private val queue = ArrayDeque(script.toList())
    val requests = mutableListOf<TransportRequest>()
    val timeouts = mutableListOf<Duration>()
    var closed = false

    fun enqueue(vararg more: Scripted) = queue.addAll(more)

    override fun execute(request: TransportRequest, timeout: Duration): TransportResponse {
        requests += request
        timeouts += timeout
        return when (val next = queue.removeFirstOrNull() ?: throw AssertionError("unexpected request $request")) {
            is Scripted.Fail -> throw next.error
            is Scripted.Answer -> TransportResponse(
                next.status,
                next.headers.entries.associate { it.key.lowercase() to listOf(it.value) },
                next.body.toByteArray(),
            )
        }
    }

    override fun close() {
        closed = true
    }

    fun header(index: Int, name: String): String? =
        requests[index].headers.entries.firstOrNull { it.key.equals(name, ignoreCase = true) }?.value

    fun body(index: Int): String? = requests[index].body?.toString(Charsets.UTF_8)
}

/** Records each wait instead of sleeping. */
class RecordingSleeper : Sleeper {
    val delays = mutableListOf<Duration>()
    override fun sleep(duration: Duration) {
        delays += duration
    }
}

val FIXED_NOW: Instant = Instant.parse("2026-08-31T10:00:00Z")

fun fakeClient(
    transport: HttpTransport,
    sleeper: Sleeper = RecordingSleeper(),
    random: Double = 0.5,
    configure: GuardClient.Builder.() -> Unit = {},
): GuardClient = GuardClient.builder()
    .baseUrl("https://guard.test/")
    .apiKey("gk_test_key")
    .transport(transport)
    .sleeper(sleeper)
    .clock(Clock.fixed(FIXED_NOW, ZoneOffset.UTC))
    .random { random }
    .apply(configure)
    .build()

fun connectionRefused() = Scripted.Fail(IOException("Connection refused"))
