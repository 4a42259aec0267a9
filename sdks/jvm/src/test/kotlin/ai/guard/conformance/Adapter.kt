package ai.guard.conformance

import ai.guard.server.GuardApiError
import ai.guard.server.GuardClient
import ai.guard.server.RequestOptions
import ai.guard.server.AuditHashInput
import ai.guard.server.canonicalizeAuditEvent
import ai.guard.server.computeAuditHash
import ai.guard.server.hasConsent
import ai.guard.server.models.AnonymousConsentInput
import ai.guard.server.models.BannerConfigQuery
import ai.guard.server.models.ConsentLike
import ai.guard.server.models.ConsentStatusQuery
import ai.guard.server.models.CreateDsrRequestInput
import ai.guard.server.models.CreateGrievanceInput
import ai.guard.server.models.GateDecisionsQuery
import ai.guard.server.models.NominationInput
import ai.guard.server.models.RecordConsentInput
import ai.guard.server.verifyStandardWebhook
import ai.guard.server.verifyWebhookSignature
import kotlinx.serialization.KSerializer
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.put
import java.math.BigDecimal
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.Paths
import java.security.SecureRandom
import java.time.Duration
import kotlin.system.exitProcess

// The JVM adapter of the conformance suite (conformance/README.md): runs every scenario against the
// fixture server with ai.guard:server-sdk. It lives in the test sources, so it never ships in the jar.
//   mvn -B -q -Pconformance test-compile exec:java [-Dexec.args="--only <id> --verbose"]

private const val SDK_NAME = "jvm"

/** A step failed for a reason the scenario states (as opposed to a crash of the adapter). */
internal class StepFailure(message: String) : Exception(message)

/** The adapter's JSON: strict, so a scenario argument the SDK's input type does not have is a failure. */
private val strict = Json { ignoreUnknownKeys = false }

/** How the SDK's own results are shown to the matcher: the wire's field names, nulls kept. */
private val wire = Json { encodeDefaults = false; explicitNulls = true }

internal class Scope(val fixtures: JsonObject, val runId: String) {
    val vars = HashMap<String, JsonElement>()
    val clients = HashMap<String, GuardClient>()
    var counter = 0
}

private val VALUE_FORMS = setOf("\$fixture", "\$ref", "\$unique", "\$concat")
private val OPERATORS = setOf("\$type", "\$absent", "\$contains", "\$length", "\$regex", "\$not", "\$all")

private fun singleKey(value: JsonElement): String? = (value as? JsonObject)?.keys?.singleOrNull()

private fun text(value: JsonElement): String = when (value) {
    is JsonPrimitive -> value.content
    else -> value.toString()
}

/** Resolves `$fixture`, `$ref`, `$unique` and `$concat` anywhere inside [value]. */
internal fun resolve(value: JsonElement, scope: Scope): JsonElement = when (value) {
    is JsonArray -> JsonArray(value.map { resolve(it, scope) })
    is JsonObject -> when (val form = singleKey(value)?.takeIf { it in VALUE_FORMS }) {
        "\$fixture" -> {
            val name = text(value.getValue(form))
            val fixture = scope.fixtures[name] ?: throw StepFailure("no fixture $name")
            if (fixture is JsonNull) {
                val notes = scope.fixtures["notes"]?.let { (it as? JsonArray)?.joinToString("; ") { n -> text(n) } }
                throw StepFailure("fixture $name is null (${notes?.ifEmpty { null } ?: "no note"})")
            }
            fixture
        }
        "\$ref" -> {
            val name = text(value.getValue(form))
            scope.vars[name] ?: throw StepFailure("no value named $name (not in let, not captured)")
        }
        "\$unique" -> JsonPrimitive("${text(value.getValue(form))}-${scope.runId}-${++scope.counter}")
        "\$concat" -> JsonPrimitive(resolve(value.getValue(form), scope).jsonArray.joinToString("") { text(it) })
        else -> JsonObject(value.mapValues { (_, v) -> resolve(v, scope) })
    }
    else -> value
}

private fun isNumber(value: JsonElement?) = value is JsonPrimitive && !value.isString && value !is JsonNull &&
    value.content != "true" && value.content != "false"

private fun typeOf(value: JsonElement): String = when {
    value is JsonNull -> "null"
    value is JsonArray -> "array"
    value is JsonObject -> "object"
    value is JsonPrimitive && value.isString -> "string"
    value is JsonPrimitive && (value.content == "true" || value.content == "false") -> "boolean"
    BigDecimal(value.jsonPrimitive.content).let { it.signum() == 0 || it.stripTrailingZeros().scale() <= 0 } -> "integer"
    else -> "number"
}

/** Deep equality with numbers compared by value (1 equals 1.0, as in JSON). */
private fun deepEqual(a: JsonElement, b: JsonElement): Boolean = when {
    isNumber(a) && isNumber(b) -> BigDecimal(a.jsonPrimitive.content).compareTo(BigDecimal(b.jsonPrimitive.content)) == 0
    a is JsonObject && b is JsonObject -> a.keys == b.keys && a.keys.all { deepEqual(a.getValue(it), b.getValue(it)) }
    a is JsonArray && b is JsonArray -> a.size == b.size && a.indices.all { deepEqual(a[it], b[it]) }
    else -> a == b
}

/** Null when [actual] matches [expected], else a message naming where it differs. */
internal fun mismatch(actual: JsonElement, expected: JsonElement, scope: Scope, where: String): String? {
    if (expected is JsonObject) {
        val key = singleKey(expected)
        if (key in VALUE_FORMS) {
            val wanted = resolve(expected, scope)
            return if (deepEqual(actual, wanted)) null else "$where: expected $wanted, got $actual"
        }
        if (key in OPERATORS) return operator(actual, key!!, expected.getValue(key), scope, where)
        if (actual !is JsonObject) return "$where: expected an object, got $actual"
        for ((name, sub) in expected) {
            val absentWanted = singleKey(sub) == "\$absent"
            val present = actual[name]
            if (present == null) {
                if (absentWanted) continue
                return "$where.$name: missing"
            }
            mismatch(present, sub, scope, "$where.$name")?.let { return it }
        }
        return null
    }
    if (expected is JsonArray) {
        if (actual !is JsonArray) return "$where: expected an array, got $actual"
        if (actual.size != expected.size) return "$where: expected ${expected.size} items, got ${actual.size}: $actual"
        for (i in expected.indices) mismatch(actual[i], expected[i], scope, "$where.$i")?.let { return it }
        return null
    }
    return if (deepEqual(actual, expected)) null else "$where: expected $expected, got $actual"
}

private fun operator(actual: JsonElement, name: String, arg: JsonElement, scope: Scope, where: String): String? = when (name) {
    "\$type" -> {
        val type = typeOf(actual)
        val wanted = text(arg)
        if (type == wanted || (wanted == "number" && type == "integer")) null else "$where: expected a $wanted, got $actual"
    }
    "\$absent" -> "$where: expected no such key, got $actual"
    "\$contains" -> when {
        actual !is JsonArray -> "$where: expected an array, got $actual"
        actual.any { mismatch(it, arg, scope, where) == null } -> null
        else -> "$where: no element matches $arg in $actual"
    }
    "\$length" -> {
        val length = when {
            actual is JsonArray -> actual.size
            actual is JsonPrimitive && actual.isString -> actual.content.length
            else -> null
        }
        if (length != null && length.toString() == text(arg)) null else "$where: expected length $arg, got $actual"
    }
    // ECMAScript and java.util.regex agree on the patterns the scenarios use; unanchored, as RegExp.test.
    "\$regex" -> if (actual is JsonPrimitive && actual.isString && Regex(text(arg)).containsMatchIn(actual.content)) {
        null
    } else {
        "$where: expected a string matching /${text(arg)}/, got $actual"
    }
    "\$not" -> if (mismatch(actual, arg, scope, where) == null) "$where: expected not $arg, got $actual" else null
    "\$all" -> arg.jsonArray.firstNotNullOfOrNull { mismatch(actual, it, scope, where) }
    else -> throw StepFailure("unknown matcher $name")
}

private fun pick(value: JsonElement, dotted: String): JsonElement {
    if (dotted.isEmpty()) return value
    var current = value
    for (part in dotted.split('.')) {
        current = when (current) {
            is JsonObject -> current[part]
            is JsonArray -> part.toIntOrNull()?.let { current.jsonArray.getOrNull(it) }
            else -> null
        } ?: throw StepFailure("cannot capture $dotted: $part is missing in $value")
    }
    return current
}

// ----- the SDK -----------------------------------------------------------------------------------

private val CLIENT_OPTIONS = setOf("baseUrl", "apiKey", "accessToken", "timeoutMs", "maxRetries")

private fun buildClient(spec: JsonElement, scope: Scope): GuardClient {
    val options = resolve(spec, scope).jsonObject
    (options.keys - CLIENT_OPTIONS).firstOrNull()?.let { throw StepFailure("unknown client option $it") }
    val builder = GuardClient.builder()
    options["baseUrl"]?.let { builder.baseUrl(text(it)) }
    options["apiKey"]?.let { builder.apiKey(text(it)) }
    options["accessToken"]?.let { builder.accessToken(text(it)) }
    options["timeoutMs"]?.let { builder.timeoutMs(text(it).toLong()) }
    options["maxRetries"]?.let { builder.maxRetries(text(it).toInt()) }
    return builder.build()
}

private fun requestOptions(spec: JsonObject): RequestOptions {
    val builder = RequestOptions.builder()
    for ((name, value) in spec) {
        when (name) {
            "timeoutMs" -> builder.timeoutMs(text(value).toLong())
            "maxRetries" -> builder.maxRetries(text(value).toInt())
            "idempotencyKey" -> builder.idempotencyKey(text(value))
            "headers" -> value.jsonObject.forEach { (header, v) -> builder.header(header, text(v)) }
            else -> throw StepFailure("unknown request option $name")
        }
    }
    return builder.build()
}

private fun <T> encode(serializer: KSerializer<T>, value: T): JsonElement = wire.encodeToJsonElement(serializer, value)

private fun <T> decode(serializer: KSerializer<T>, value: JsonElement, what: String): T = try {
    strict.decodeFromJsonElement(serializer, value)
} catch (e: IllegalArgumentException) {
    throw StepFailure("argument is not a $what: ${e.message?.lineSequence()?.first()}")
}

private fun optionalObject(args: List<JsonElement>, index: Int): JsonObject = args.getOrNull(index) as? JsonObject ?: JsonObject(emptyMap())

private fun string(args: List<JsonElement>, index: Int): String = args.getOrNull(index)?.let { text(it) } ?: throw StepFailure("argument ${index + 1} is missing")

/** A list method's optional `{limit?, cursor?}` argument. */
private fun pageQuery(call: String, args: List<JsonElement>): ai.guard.server.models.PageQuery {
    val q = optionalObject(args, 0)
    (q.keys - setOf("limit", "cursor")).firstOrNull()?.let { throw StepFailure("unknown $call key $it") }
    return ai.guard.server.models.PageQuery(q["limit"]?.let { text(it).toInt() }, q["cursor"]?.takeIf { it !is JsonNull }?.let { text(it) })
}

/** Client methods and how many positional arguments come before the per-request options. */
private val ARITY = mapOf(
    "getOrganization" to 1, "getNotices" to 1, "getNotice" to 1, "getBannerConfig" to 2, "giveAnonymousConsent" to 1,
    "brokerToken" to 1, "linkAnonymousConsent" to 1, "listDsrRequests" to 0, "createDsrRequest" to 1, "listGrievances" to 0,
    "createGrievance" to 1, "getNomination" to 0, "upsertNomination" to 1, "revokeNomination" to 0, "recordConsent" to 1,
    "getConsent" to 1, "withdrawConsent" to 1, "getConsentStatus" to 1, "verifyConsent" to 1, "listGateDecisions" to 1,
    "listGateAlerts" to 0, "createOfflineConsentLink" to 1, "syncOfflineCaptures" to 1, "createPosConsentRequest" to 1,
    "recordIvrConsentArtifact" to 1, "withdrawConsentByToken" to 1, "listDueRetentions" to 1, "listBreaches" to 1,
    "listCrossBorderTransfers" to 1, "confirmErasureExecuted" to 2,
)

private fun auditInput(value: JsonElement): AuditHashInput {
    val o = value.jsonObject
    fun number(name: String): Number = text(o.getValue(name)).let { it.toLongOrNull() ?: it.toDouble() }
    return AuditHashInput(
        text(o.getValue("organizationId")),
        text(o.getValue("noticeId")),
        number("noticeVersion"),
        text(o.getValue("purpose")),
        o.getValue("dataTypes").jsonArray.map { text(it) },
        number("givenAt"),
        o["source"]?.takeIf { it !is JsonNull }?.let { text(it) },
    )
}

private fun helper(name: String, args: List<JsonElement>): JsonElement? = when (name) {
    "hasConsent" -> {
        val held = args[0].jsonArray.map { record ->
            val o = record.jsonObject
            object : ConsentLike {
                override val purpose = text(o.getValue("purpose"))
                override val withdrawnAt = o["withdrawnAt"]?.takeIf { it !is JsonNull }?.let { text(it).toLong() }
            }
        }
        JsonPrimitive(hasConsent(held, string(args, 1)))
    }
    "verifyWebhookSignature" -> JsonPrimitive(
        verifyWebhookSignature(string(args, 0), string(args, 1), args.getOrNull(2)?.takeIf { it !is JsonNull }?.let { text(it) }),
    )
    "verifyStandardWebhook" -> {
        val headers = args[2].jsonObject.mapValues { (_, v) -> if (v is JsonNull) null else text(v) }
        val options = optionalObject(args, 3)
        (options.keys - setOf("toleranceSeconds", "nowSeconds")).firstOrNull()?.let { throw StepFailure("unknown webhook option $it") }
        val result = verifyStandardWebhook(
            string(args, 0),
            string(args, 1),
            headers,
            options["toleranceSeconds"]?.let { text(it).toLong() } ?: ai.guard.server.DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
            options["nowSeconds"]?.let { text(it).toLong() },
        )
        buildJsonObject {
            put("valid", result.isValid)
            result.reason?.let { put("reason", it.wireName) }
        }
    }
    "canonicalizeAuditEvent" -> JsonPrimitive(canonicalizeAuditEvent(auditInput(args[0])))
    "computeAuditHash" -> JsonPrimitive(computeAuditHash(string(args, 0), auditInput(args.getOrNull(1) ?: throw StepFailure("argument 2 is missing"))))
    "canonicalizeCaptureArtifact" -> JsonPrimitive(ai.guard.server.canonicalizeCaptureArtifact(args.getOrNull(0)?.jsonObject ?: throw StepFailure("argument 1 is missing")))
    "verifyCaptureSignature" -> JsonPrimitive(ai.guard.server.verifyCaptureSignature(string(args, 0), string(args, 1), string(args, 2)))
    else -> null
}

private fun callSdk(step: JsonObject, scope: Scope): JsonElement {
    val call = text(step.getValue("call"))
    val args = resolve(step["args"] ?: JsonArray(emptyList()), scope).jsonArray
    if (call != "setAccessToken" && call !in ARITY) helper(call, args)?.let { return it }
    val clientName = step["client"]?.let { text(it) } ?: "default"
    val client = scope.clients[clientName] ?: throw StepFailure("no client $clientName")
    if (call == "setAccessToken") {
        client.setAccessToken(args.getOrNull(0)?.takeIf { it !is JsonNull }?.let { text(it) })
        return JsonNull
    }
    val arity = ARITY[call] ?: throw StepFailure("unknown method $call")
    if (args.size > arity) throw StepFailure("$call takes $arity arguments, got ${args.size}")
    val options = step["options"]?.let { requestOptions(resolve(it, scope).jsonObject) } ?: RequestOptions.NONE
    return when (call) {
        "getOrganization" -> encode(ai.guard.server.models.OrgSummary.serializer(), client.getOrganization(string(args, 0), options))
        "getNotices" -> encode(ai.guard.server.models.NoticeList.serializer(), client.getNotices(string(args, 0), options))
        "getNotice" -> encode(ai.guard.server.models.Notice.serializer(), client.getNotice(string(args, 0), options))
        "getBannerConfig" -> {
            val scopeArg = optionalObject(args, 1)
            (scopeArg.keys - setOf("domain", "appId")).firstOrNull()?.let { throw StepFailure("unknown banner scope key $it") }
            val query = BannerConfigQuery(scopeArg["domain"]?.let { text(it) }, scopeArg["appId"]?.let { text(it) })
            encode(ai.guard.server.models.BannerConfig.serializer(), client.getBannerConfig(string(args, 0), query, options))
        }
        "giveAnonymousConsent" -> encode(
            ai.guard.server.models.AnonymousConsent.serializer(),
            client.giveAnonymousConsent(decode(AnonymousConsentInput.serializer(), args[0], "AnonymousConsentInput"), options),
        )
        "brokerToken" -> encode(ai.guard.server.models.BrokeredToken.serializer(), client.brokerToken(string(args, 0), options))
        "linkAnonymousConsent" -> encode(
            ai.guard.server.models.LinkAnonymousConsentResult.serializer(),
            client.linkAnonymousConsent(string(args, 0), options),
        )
        "listDsrRequests" -> encode(ai.guard.server.models.DsrRequestList.serializer(), client.listDsrRequests(options))
        "createDsrRequest" -> encode(
            ai.guard.server.models.DsrRequest.serializer(),
            client.createDsrRequest(decode(CreateDsrRequestInput.serializer(), args[0], "CreateDsrRequestInput"), options),
        )
        "listGrievances" -> encode(ai.guard.server.models.GrievanceList.serializer(), client.listGrievances(options))
        "createGrievance" -> encode(
            ai.guard.server.models.Grievance.serializer(),
            client.createGrievance(decode(CreateGrievanceInput.serializer(), args[0], "CreateGrievanceInput"), options),
        )
        "getNomination" -> client.getNomination(options)?.let { encode(ai.guard.server.models.Nomination.serializer(), it) } ?: JsonNull
        "upsertNomination" -> encode(
            ai.guard.server.models.Nomination.serializer(),
            client.upsertNomination(decode(NominationInput.serializer(), args[0], "NominationInput"), options),
        )
        "revokeNomination" -> encode(ai.guard.server.models.NominationRevocation.serializer(), client.revokeNomination(options))
        "recordConsent" -> encode(
            ai.guard.server.models.ConsentRecord.serializer(),
            client.recordConsent(decode(RecordConsentInput.serializer(), args[0], "RecordConsentInput"), options),
        )
        "getConsent" -> encode(ai.guard.server.models.ConsentRecord.serializer(), client.getConsent(string(args, 0), options))
        "withdrawConsent" -> encode(ai.guard.server.models.ConsentRecord.serializer(), client.withdrawConsent(string(args, 0), options))
        "getConsentStatus" -> {
            val q = args[0].jsonObject
            val query = when {
                q.keys == setOf("email") -> ConsentStatusQuery.byEmail(text(q.getValue("email")))
                q.keys == setOf("externalId") -> ConsentStatusQuery.byExternalId(text(q.getValue("externalId")))
                else -> throw StepFailure("getConsentStatus takes exactly one of email and externalId, got ${q.keys}")
            }
            encode(ai.guard.server.models.ConsentStatus.serializer(), client.getConsentStatus(query, options))
        }
        "verifyConsent" -> encode(ai.guard.server.models.ConsentGateVerdict.serializer(), client.verifyConsent(string(args, 0), options))
        "listGateDecisions" -> {
            val q = optionalObject(args, 0)
            (q.keys - setOf("limit")).firstOrNull()?.let { throw StepFailure("unknown listGateDecisions key $it") }
            encode(
                ai.guard.server.models.ConsentGateDecisionList.serializer(),
                client.listGateDecisions(GateDecisionsQuery(q["limit"]?.let { text(it).toInt() }), options),
            )
        }
        "listGateAlerts" -> encode(ai.guard.server.models.ConsentGateAlertList.serializer(), client.listGateAlerts(options))
        "listDueRetentions" -> encode(ai.guard.server.models.DueRetentionList.serializer(), client.listDueRetentions(pageQuery(call, args), options))
        "listBreaches" -> encode(ai.guard.server.models.BreachList.serializer(), client.listBreaches(pageQuery(call, args), options))
        "listCrossBorderTransfers" -> encode(
            ai.guard.server.models.CrossBorderTransferList.serializer(),
            client.listCrossBorderTransfers(pageQuery(call, args), options),
        )
        "confirmErasureExecuted" -> {
            val input = optionalObject(args, 1)
            encode(
                ai.guard.server.models.ErasureExecution.serializer(),
                client.confirmErasureExecuted(
                    string(args, 0),
                    decode(ai.guard.server.models.ErasureExecutionInput.serializer(), input, "ErasureExecutionInput"),
                    options,
                ),
            )
        }
        "createOfflineConsentLink" -> encode(
            ai.guard.server.models.OfflineConsentLink.serializer(),
            client.createOfflineConsentLink(decode(ai.guard.server.models.CreateOfflineConsentLinkInput.serializer(), args[0], "CreateOfflineConsentLinkInput"), options),
        )
        "syncOfflineCaptures" -> encode(
            ai.guard.server.models.OfflineCaptureSyncResult.serializer(),
            client.syncOfflineCaptures(
                decode(kotlinx.serialization.builtins.ListSerializer(ai.guard.server.models.OfflineCaptureSession.serializer()), args[0], "list of OfflineCaptureSession"),
                options,
            ),
        )
        "createPosConsentRequest" -> encode(
            ai.guard.server.models.PosConsentRequest.serializer(),
            client.createPosConsentRequest(decode(ai.guard.server.models.PosConsentRequestInput.serializer(), args[0], "PosConsentRequestInput"), options),
        )
        "recordIvrConsentArtifact" -> encode(
            ai.guard.server.models.IvrConsentArtifactResult.serializer(),
            client.recordIvrConsentArtifact(decode(ai.guard.server.models.IvrConsentArtifactInput.serializer(), args[0], "IvrConsentArtifactInput"), options),
        )
        "withdrawConsentByToken" -> encode(
            ai.guard.server.models.WithdrawalByTokenResult.serializer(),
            client.withdrawConsentByToken(string(args, 0), options),
        )
        else -> throw StepFailure("unknown method $call")
    }
}

private fun describeError(error: Throwable): JsonElement = buildJsonObject {
    put("type", error.javaClass.simpleName)
    if (error is GuardApiError) {
        put("status", error.status)
        put("code", error.code)
        put("message", error.message)
        put("requestId", error.requestId)
    } else {
        put("message", error.message ?: error.toString())
    }
}

private val controlHttp: HttpClient = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()

private fun callFixture(step: JsonObject, scope: Scope): JsonElement {
    val action = text(step.getValue("fixture"))
    val body = resolve(step["with"] ?: JsonObject(emptyMap()), scope)
    val control = scope.fixtures["controlUrl"]?.let { text(it) } ?: throw StepFailure("no fixture controlUrl")
    val request = HttpRequest.newBuilder(URI.create("$control/$action"))
        .header("content-type", "application/json")
        .timeout(Duration.ofSeconds(60))
        .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
        .build()
    val response = controlHttp.send(request, HttpResponse.BodyHandlers.ofString())
    val json = response.body().takeIf { it.isNotEmpty() }?.let { Json.parseToJsonElement(it) } ?: JsonNull
    if (response.statusCode() !in 200..299) {
        val message = (json as? JsonObject)?.get("error")?.let { text(it) } ?: response.body()
        throw StepFailure("fixture $action answered ${response.statusCode()}: $message")
    }
    return json
}

private fun runStep(step: JsonObject, scope: Scope) {
    val (ok, value) = try {
        true to (if (step["fixture"] != null) callFixture(step, scope) else callSdk(step, scope))
    } catch (e: StepFailure) {
        throw e
    } catch (e: Exception) {
        false to describeError(e)
    }
    val expect = step["expect"]?.jsonObject ?: JsonObject(emptyMap())
    val expectedError = expect["error"]
    if (expectedError != null) {
        if (ok) throw StepFailure("expected an error, got $value")
        mismatch(value, expectedError, scope, "error")?.let { throw StepFailure(it) }
    } else {
        if (!ok) throw StepFailure("unexpected $value")
        expect["result"]?.let { wanted -> mismatch(value, wanted, scope, "result")?.let { throw StepFailure(it) } }
    }
    step["capture"]?.jsonObject?.forEach { (name, path) -> scope.vars[name] = pick(value, text(path)) }
}

private fun runScenario(scenario: JsonObject, fixtures: JsonObject, verbose: Boolean) {
    val runId = SDK_NAME + SecureRandom().nextInt().toUInt().toString(16).padStart(8, '0')
    val scope = Scope(fixtures, runId)
    try {
        scenario["let"]?.jsonObject?.forEach { (name, value) -> scope.vars[name] = resolve(value, scope) }
        scenario["clients"]?.jsonObject?.forEach { (name, spec) -> scope.clients[name] = buildClient(spec, scope) }
        for ((index, stepElement) in scenario.getValue("steps").jsonArray.withIndex()) {
            val step = stepElement.jsonObject
            val label = "step ${index + 1} (${step["call"]?.let { text(it) } ?: "fixture ${text(step.getValue("fixture"))}"})"
            if (verbose) println("  ${text(scenario.getValue("id"))} $label")
            try {
                runStep(step, scope)
            } catch (e: StepFailure) {
                throw StepFailure("$label: ${e.message}")
            }
        }
    } finally {
        scope.clients.values.forEach { it.close() }
    }
}

/** Runs the suite; returns (passed, failed) after printing one line per scenario and the summary. */
internal fun runSuite(scenarioDir: Path, fixtures: JsonObject, only: List<String>, verbose: Boolean): Pair<Int, Int> {
    val files = scenarioDir.toFile().listFiles { file -> file.name.endsWith(".json") }
        ?: throw IllegalArgumentException("no scenario directory $scenarioDir")
    val scenarios = files.sortedBy { it.name }.map { Json.parseToJsonElement(it.readText()).jsonObject }
    val known = scenarios.map { text(it.getValue("id")) }.toSet()
    val listFile = scenarioDir.resolveSibling("expected-failures").resolve("$SDK_NAME.json")
    val expected = if (Files.exists(listFile)) {
        Json.parseToJsonElement(Files.readString(listFile)).jsonObject.getValue("expectedFailures").jsonArray
            .associate { text(it.jsonObject.getValue("id")) to text(it.jsonObject.getValue("reason")) }
    } else {
        emptyMap()
    }
    var passed = 0
    var failed = 0
    for (id in expected.keys - known) {
        println("FAIL $id: listed in expected-failures/$SDK_NAME.json but no such scenario")
        failed++
    }
    for (scenario in scenarios) {
        val id = text(scenario.getValue("id"))
        if (only.isNotEmpty() && id !in only) continue
        val problem = try {
            runScenario(scenario, fixtures, verbose)
            null
        } catch (e: StepFailure) {
            e.message
        } catch (e: Exception) {
            "adapter error: ${e.stackTraceToString()}"
        }
        val listed = id in expected
        when {
            problem == null && !listed -> { println("PASS $id"); passed++ }
            problem == null -> { println("STALE $id: passes but is listed in expected-failures/$SDK_NAME.json; remove it"); failed++ }
            listed -> println("XFAIL $id: $problem (listed: ${expected[id]})")
            else -> { println("FAIL $id: $problem"); failed++ }
        }
    }
    println("conformance: $passed passed, $failed failed")
    return passed to failed
}

public object Adapter {
    @JvmStatic
    public fun main(args: Array<String>) {
        val only = mutableListOf<String>()
        var verbose = false
        var i = 0
        while (i < args.size) {
            when (args[i]) {
                "--only" -> only += (args.getOrNull(++i) ?: "").split(',').filter { it.isNotEmpty() }
                "--verbose" -> verbose = true
                else -> {
                    System.err.println("unknown argument ${args[i]} (use --only <id>, --verbose)")
                    exitProcess(2)
                }
            }
            i++
        }
        val raw = System.getenv("GUARD_CONFORMANCE_FIXTURES")
        if (raw.isNullOrBlank()) {
            System.err.println("GUARD_CONFORMANCE_FIXTURES is not set (start conformance/fixture-server.mjs)")
            exitProcess(2)
        }
        val dir = Paths.get(System.getProperty("guard.conformance.dir") ?: "../../conformance/scenarios").toAbsolutePath().normalize()
        val (_, failed) = runSuite(dir, Json.parseToJsonElement(raw).jsonObject, only, verbose)
        System.out.flush()
        // exec:java runs inside Maven's JVM: only a failing run ends it early, so Maven reports the exit status.
        if (failed > 0) exitProcess(1)
    }
}
