package ai.guard.server

import ai.guard.server.http.TransportRequest
import ai.guard.server.models.AnonymousConsent
import ai.guard.server.models.AnonymousConsentInput
import ai.guard.server.models.BannerConfig
import ai.guard.server.models.BannerConfigQuery
import ai.guard.server.models.BreachList
import ai.guard.server.models.BrokeredToken
import ai.guard.server.models.ConsentGateAlertList
import ai.guard.server.models.ConsentGateDecisionList
import ai.guard.server.models.ConsentGateVerdict
import ai.guard.server.models.ConsentRecord
import ai.guard.server.models.ConsentStatus
import ai.guard.server.models.ConsentStatusQuery
import ai.guard.server.models.CreateDsrRequestInput
import ai.guard.server.models.CreateGrievanceInput
import ai.guard.server.models.DsrRequest
import ai.guard.server.models.DsrRequestList
import ai.guard.server.models.DueRetentionList
import ai.guard.server.models.ErasureExecution
import ai.guard.server.models.ErasureExecutionInput
import ai.guard.server.models.PageQuery
import ai.guard.server.models.GateDecisionsQuery
import ai.guard.server.models.Grievance
import ai.guard.server.models.GrievanceList
import ai.guard.server.models.LinkAnonymousConsentResult
import ai.guard.server.models.Nomination
import ai.guard.server.models.NominationInput
import ai.guard.server.models.NominationRevocation
import ai.guard.server.models.Notice
import ai.guard.server.models.NoticeList
import ai.guard.server.models.OrgSummary
import ai.guard.server.models.RecordConsentInput
import ai.guard.server.models.CreateOfflineConsentLinkInput
import ai.guard.server.models.CrossBorderTransferList
import ai.guard.server.models.IvrConsentArtifactInput
import ai.guard.server.models.IvrConsentArtifactResult
import ai.guard.server.models.OfflineCaptureBatch
import ai.guard.server.models.OfflineCapturePurposeGrant
import ai.guard.server.models.OfflineCaptureSession
import ai.guard.server.models.OfflineCaptureSyncResult
import ai.guard.server.models.OfflineConsentLink
import ai.guard.server.models.PosConsentRequest
import ai.guard.server.models.PosConsentRequestInput
import ai.guard.server.models.WithdrawalByTokenResult
import kotlinx.serialization.KSerializer
import kotlinx.serialization.builtins.nullable
import kotlinx.serialization.descriptors.PrimitiveKind
import kotlinx.serialization.descriptors.SerialDescriptor
import kotlinx.serialization.descriptors.StructureKind
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestFactory
import org.yaml.snakeyaml.LoaderOptions
import org.yaml.snakeyaml.Yaml
import java.nio.file.Files

/**
 * The models and the client checked against contract/openapi/v1.yaml, so a contract change that the
 * SDK has not followed fails the build (issue 5 item 7). Models: every schema property is a class
 * property of the same wire name and vice versa; required ⇔ no default; a required property is
 * nullable exactly when the schema allows null (an optional one is nullable, default null); JSON types
 * match, recursively through arrays, maps and nested objects. Client: every method sends the
 * operation's HTTP method to its path, with the operation's credential, an Idempotency-Key exactly
 * when the operation takes one, and only query parameters the operation declares.
 */
/**
 * Properties the contract made required in a later minor release that the models default, so this
 * SDK still reads an older server's answer: a list without `nextCursor` (before contract 1.8.0) is
 * one last page.
 */
private val READS_OLDER_SERVERS = setOf("nextCursor")

class ContractTest {
    @Suppress("UNCHECKED_CAST")
    private val spec: Map<String, Any?> = Yaml(LoaderOptions().apply { codePointLimit = 20_000_000 })
        .load<Any>(Files.readString(repoRoot.resolve("contract/openapi/v1.yaml"))) as Map<String, Any?>

    private val operations: Map<String, Operation> = buildMap {
        @Suppress("UNCHECKED_CAST")
        for ((path, item) in spec["paths"] as Map<String, Map<String, Any?>>) {
            for ((method, op) in item) {
                if (op !is Map<*, *> || op["operationId"] == null) continue
                @Suppress("UNCHECKED_CAST")
                put(op["operationId"] as String, Operation(method.uppercase(), path, op as Map<String, Any?>))
            }
        }
    }

    private inner class Operation(val method: String, val path: String, val raw: Map<String, Any?>) {
        @Suppress("UNCHECKED_CAST")
        fun response(status: String): Map<String, Any?> {
            val responses = raw["responses"] as Map<String, Any?>
            val response = deref(responses[status] ?: error("no $status response"))
            return ((response["content"] as Map<String, Any?>)["application/json"] as Map<String, Any?>)["schema"] as Map<String, Any?>
        }

        @Suppress("UNCHECKED_CAST")
        fun requestBody(): Map<String, Any?> =
            (((deref(raw["requestBody"]!!)["content"] as Map<String, Any?>)["application/json"] as Map<String, Any?>)["schema"] as Map<String, Any?>)

        @Suppress("UNCHECKED_CAST")
        fun parameters(where: String): Set<String> = ((raw["parameters"] as List<Any?>?) ?: emptyList())
            .map { deref(it!!) }.filter { it["in"] == where }.map { it["name"] as String }.toSet()

        /**
         * The credential a server SDK calls the operation with: its only one, or the service key where
         * the contract also accepts another (the gate's decision log also takes a dashboard session).
         */
        @Suppress("UNCHECKED_CAST")
        val credential: String
            get() {
                val schemes = ((raw["security"] as List<Map<String, Any?>>?) ?: emptyList()).flatMap { it.keys }
                return when {
                    schemes.isEmpty() -> "none"
                    schemes.size == 1 -> schemes.single()
                    "serviceKey" in schemes -> "serviceKey"
                    else -> "?"
                }
            }
    }

    @Suppress("UNCHECKED_CAST")
    private fun deref(node: Any): Map<String, Any?> {
        var current = node as Map<String, Any?>
        while (current["\$ref"] != null) {
            val pointer = (current["\$ref"] as String).removePrefix("#/").split('/')
            current = pointer.fold(spec as Any?) { acc, key -> (acc as Map<String, Any?>)[key] } as Map<String, Any?>
        }
        return current
    }

    // ----- models --------------------------------------------------------------------------------

    private val responseModels: List<Triple<String, String, KSerializer<*>>> = listOf(
        Triple("getOrgBySlug", "200", OrgSummary.serializer()),
        Triple("getNoticesForOrg", "200", NoticeList.serializer()),
        Triple("getNoticeById", "200", Notice.serializer()),
        Triple("getBannerConfig", "200", BannerConfig.serializer()),
        Triple("giveConsentAnonymous", "201", AnonymousConsent.serializer()),
        Triple("brokerToken", "201", BrokeredToken.serializer()),
        Triple("linkAnonymousConsent", "200", LinkAnonymousConsentResult.serializer()),
        Triple("recordConsent", "201", ConsentRecord.serializer()),
        Triple("getConsent", "200", ConsentRecord.serializer()),
        Triple("withdrawConsent", "200", ConsentRecord.serializer()),
        Triple("getConsentStatus", "200", ConsentStatus.serializer()),
        Triple("listDsrRequestsForCurrentUser", "200", DsrRequestList.serializer()),
        Triple("createDsrRequest", "201", DsrRequest.serializer()),
        Triple("listGrievancesForCurrentUser", "200", GrievanceList.serializer()),
        Triple("createGrievance", "201", Grievance.serializer()),
        Triple("getNomination", "200", Nomination.serializer().nullable),
        Triple("upsertNomination", "200", Nomination.serializer()),
        Triple("revokeNomination", "200", NominationRevocation.serializer()),
        Triple("verifyConsentGate", "200", ConsentGateVerdict.serializer()),
        Triple("listConsentGateDecisions", "200", ConsentGateDecisionList.serializer()),
        Triple("listConsentGateBypassAlerts", "200", ConsentGateAlertList.serializer()),
        Triple("createOfflineConsentLink", "201", OfflineConsentLink.serializer()),
        Triple("syncOfflineCaptures", "200", OfflineCaptureSyncResult.serializer()),
        Triple("createPosConsentRequest", "201", PosConsentRequest.serializer()),
        Triple("recordIvrConsentArtifact", "201", IvrConsentArtifactResult.serializer()),
        Triple("withdrawConsentByToken", "200", WithdrawalByTokenResult.serializer()),
        Triple("listDueRetentions", "200", DueRetentionList.serializer()),
        Triple("listBreaches", "200", BreachList.serializer()),
        Triple("listCrossBorderTransfers", "200", CrossBorderTransferList.serializer()),
        Triple("confirmRetentionErasureExecuted", "200", ErasureExecution.serializer()),
    )

    private val requestModels: List<Pair<String, KSerializer<*>>> = listOf(
        "giveConsentAnonymous" to AnonymousConsentInput.serializer(),
        "createDsrRequest" to CreateDsrRequestInput.serializer(),
        "createGrievance" to CreateGrievanceInput.serializer(),
        "upsertNomination" to NominationInput.serializer(),
        "recordConsent" to RecordConsentInput.serializer(),
        "createOfflineConsentLink" to CreateOfflineConsentLinkInput.serializer(),
        "syncOfflineCaptures" to OfflineCaptureBatch.serializer(),
        "createPosConsentRequest" to PosConsentRequestInput.serializer(),
        "recordIvrConsentArtifact" to IvrConsentArtifactInput.serializer(),
        "confirmRetentionErasureExecuted" to ErasureExecutionInput.serializer(),
    )

    @TestFactory
    fun responseModelsMatchTheContract(): List<DynamicTest> = responseModels.map { (operationId, status, serializer) ->
        DynamicTest.dynamicTest("$operationId $status ↔ ${serializer.descriptor.serialName.substringAfterLast('.')}") {
            val problems = mutableListOf<String>()
            compare(operations.getValue(operationId).response(status), serializer.descriptor, operationId, problems)
            assertEquals(emptyList<String>(), problems)
        }
    }

    @Test
    fun `a response the contract names is modelled by a class of that name`() {
        val mismatched = responseModels.mapNotNull { (operationId, status, serializer) ->
            val ref = operations.getValue(operationId).response(status)["\$ref"] as String? ?: return@mapNotNull null
            val component = ref.substringAfterLast('/')
            val model = serializer.descriptor.serialName.substringAfterLast('.').removeSuffix("?")
            if (model == component) null else "$operationId: the contract's $component, the SDK's $model"
        }
        assertEquals(emptyList<String>(), mismatched)
    }

    @Test
    @Suppress("DEPRECATION")
    fun `the former name of the gate's answer still compiles`() {
        val verdict: ai.guard.server.models.ConsentVerification = ConsentGateVerdict("allow", "consent_active", "cns_1")
        assertTrue(verdict.isAllowed)
    }

    @TestFactory
    fun requestModelsMatchTheContract(): List<DynamicTest> = requestModels.map { (operationId, serializer) ->
        DynamicTest.dynamicTest("$operationId body ↔ ${serializer.descriptor.serialName.substringAfterLast('.')}") {
            val problems = mutableListOf<String>()
            compare(operations.getValue(operationId).requestBody(), serializer.descriptor, "$operationId body", problems)
            assertEquals(emptyList<String>(), problems)
        }
    }

    @Test
    fun `the comparison itself catches a stale model`() {
        // A schema with one more required property and one type change than OrgSummary has.
        val schema = mapOf(
            "type" to "object",
            "required" to listOf("orgId", "name", "slug", "region"),
            "properties" to mapOf("orgId" to mapOf("type" to "integer"), "name" to mapOf("type" to "string"), "slug" to mapOf("type" to "string"), "region" to mapOf("type" to "string")),
        )
        val problems = mutableListOf<String>()
        compare(schema, OrgSummary.serializer().descriptor, "stale", problems)
        assertEquals(listOf("stale.orgId: schema type integer, model STRING", "stale.region: in the contract, not in the model"), problems)
    }

    private fun allowsNull(schema: Map<String, Any?>): Boolean {
        val type = schema["type"]
        if (type is List<*> && "null" in type) return true
        @Suppress("UNCHECKED_CAST")
        return (schema["anyOf"] as List<Any>?)?.any { deref(it)["type"] == "null" } == true
    }

    /** The schema without `$ref`, `anyOf: [X, null]` and `allOf` wrappers, and its JSON type. */
    @Suppress("UNCHECKED_CAST")
    private fun unwrap(node: Map<String, Any?>): Pair<Map<String, Any?>, String?> {
        var schema = deref(node)
        (schema["anyOf"] as List<Any>?)?.let { choices ->
            val nonNull = choices.map { deref(it) }.filter { it["type"] != "null" }
            if (nonNull.size == 1) schema = nonNull.single()
        }
        (schema["allOf"] as List<Any>?)?.let { parts ->
            val merged = parts.map { unwrap(deref(it)).first }
            schema = mapOf(
                "type" to "object",
                "required" to merged.flatMap { (it["required"] as List<String>?) ?: emptyList() },
                "properties" to merged.fold(emptyMap<String, Any?>()) { acc, it -> acc + ((it["properties"] as Map<String, Any?>?) ?: emptyMap()) },
            )
        }
        val type = when (val t = schema["type"]) {
            is String -> t
            is List<*> -> t.filterIsInstance<String>().singleOrNull { it != "null" }
            else -> if (schema["properties"] != null || schema["additionalProperties"] != null) "object" else null
        }
        return schema to type
    }

    @Suppress("UNCHECKED_CAST")
    private fun compare(node: Map<String, Any?>, descriptor: SerialDescriptor, where: String, problems: MutableList<String>) {
        val (schema, type) = unwrap(node)
        val kind = descriptor.kind
        when (type) {
            "string" -> if (kind != PrimitiveKind.STRING) problems += "$where: schema type string, model $kind"
            "integer" -> if (kind != PrimitiveKind.INT && kind != PrimitiveKind.LONG) problems += "$where: schema type integer, model $kind"
            "number" -> if (kind != PrimitiveKind.DOUBLE) problems += "$where: schema type number, model $kind"
            "boolean" -> if (kind != PrimitiveKind.BOOLEAN) problems += "$where: schema type boolean, model $kind"
            "array" -> if (kind != StructureKind.LIST) {
                problems += "$where: schema type array, model $kind"
            } else {
                compare(schema["items"] as Map<String, Any?>, descriptor.getElementDescriptor(0), "$where[]", problems)
            }
            "object" -> {
                val properties = schema["properties"] as Map<String, Any?>?
                val additional = schema["additionalProperties"]
                when {
                    properties != null -> compareObject(schema, properties, descriptor, where, problems)
                    additional is Map<*, *> -> if (kind != StructureKind.MAP) {
                        problems += "$where: schema is a map, model $kind"
                    } else {
                        compare(additional as Map<String, Any?>, descriptor.getElementDescriptor(1), "$where{}", problems)
                    }
                    // An open object: only a JSON object type can hold it faithfully.
                    else -> if (!descriptor.serialName.contains("JsonObject")) problems += "$where: open object, model ${descriptor.serialName}"
                }
            }
            // No type at all: any JSON value, which only a JSON element can hold faithfully.
            null -> if (!descriptor.serialName.contains("JsonElement")) problems += "$where: any JSON, model ${descriptor.serialName}"
            else -> problems += "$where: schema type $type is not handled by this check"
        }
    }

    @Suppress("UNCHECKED_CAST")
    private fun compareObject(
        schema: Map<String, Any?>,
        properties: Map<String, Any?>,
        descriptor: SerialDescriptor,
        where: String,
        problems: MutableList<String>,
    ) {
        if (descriptor.kind != StructureKind.CLASS) {
            problems += "$where: schema is an object with properties, model ${descriptor.kind}"
            return
        }
        val required = (schema["required"] as List<String>?)?.toSet() ?: emptySet()
        val modelNames = (0 until descriptor.elementsCount).map { descriptor.getElementName(it) }
        for ((name, propertyNode) in properties) {
            val index = modelNames.indexOf(name)
            if (index == -1) {
                problems += "$where.$name: in the contract, not in the model"
                continue
            }
            val element = descriptor.getElementDescriptor(index)
            val optional = descriptor.isElementOptional(index)
            val property = propertyNode as Map<String, Any?>
            if (name in required) {
                if (optional && name !in READS_OLDER_SERVERS) problems += "$where.$name: required in the contract, has a default in the model"
                val nullable = allowsNull(property) || allowsNull(deref(property))
                if (nullable != element.isNullable) {
                    problems += "$where.$name: the contract ${if (nullable) "allows" else "forbids"} null, the model ${if (element.isNullable) "allows" else "forbids"} it"
                }
            } else if (!optional || !element.isNullable) {
                problems += "$where.$name: optional in the contract, so the model needs a nullable property with default null"
            }
            compare(property, element, "$where.$name", problems)
        }
        for (name in modelNames - properties.keys) problems += "$where.$name: in the model, not in the contract"
    }

    // ----- client calls --------------------------------------------------------------------------

    private data class Expected(val operationId: String, val call: (GuardClient) -> Any?, val answer: String, val status: Int = 200)

    private val dsr = """{"requestId":"dsr_1","type":"erasure","status":"pending"}"""
    private val consent = """{"@context":"c","consentId":"cns_1","purpose":"p","dataTypes":["e"],"givenAt":1,"withdrawnAt":null,"status":"active"}"""
    private val grievance = """{"grievanceId":"grv_1","subject":"s","description":"d","status":"open","dueAt":1}"""
    private val nomination = """{"nominationId":"nom_1","nomineeName":"n","nomineeContact":"c","status":"active"}"""

    /** Every client method, with the operation it must hit. */
    private val calls = listOf(
        Expected("getOrgBySlug", { it.getOrganization("acme") }, """{"orgId":"o","name":"n","slug":"acme"}"""),
        Expected("getNoticesForOrg", { it.getNotices("org_1") }, """{"notices":[]}"""),
        Expected("getNoticeById", { it.getNotice("ntc_1") }, """{"_id":"ntc_1","organizationId":"o","version":1,"itemized":[],"content":{},"status":"published"}"""),
        Expected("getBannerConfig", { it.getBannerConfig("org_1", BannerConfigQuery("d.example", "app")) }, """{"configVersion":1}"""),
        Expected("giveConsentAnonymous", { it.giveAnonymousConsent(AnonymousConsentInput("o", "n", "p", listOf("e"), "a")) }, """{"consentId":"c","purpose":"p","dataTypes":["e"],"givenAt":1}""", 201),
        Expected("brokerToken", { it.brokerToken("user") }, """{"accessToken":"t","expiresAt":1,"tokenType":"Bearer"}""", 201),
        Expected("linkAnonymousConsent", { it.linkAnonymousConsent("a") }, """{"linkedCount":0,"needsReconsent":[]}"""),
        Expected("recordConsent", { it.recordConsent(RecordConsentInput("a@example.com", "n", "p", listOf("e"))) }, consent, 201),
        Expected("getConsent", { it.getConsent("cns_1") }, consent),
        Expected("withdrawConsent", { it.withdrawConsent("cns_1") }, consent),
        Expected("getConsentStatus", { it.getConsentStatus(ConsentStatusQuery.byExternalId("u")) }, """{"principal":{"principalId":"p","externalId":"u","email":null},"consents":[]}"""),
        Expected("listDsrRequestsForCurrentUser", { it.listDsrRequests() }, """{"requests":[],"nextCursor":null}"""),
        Expected("createDsrRequest", { it.createDsrRequest(CreateDsrRequestInput("o", "erasure")) }, dsr, 201),
        Expected("listGrievancesForCurrentUser", { it.listGrievances() }, """{"grievances":[],"nextCursor":null}"""),
        Expected("createGrievance", { it.createGrievance(CreateGrievanceInput("o", "s", "d")) }, grievance, 201),
        Expected("getNomination", { it.getNomination() }, "null"),
        Expected("upsertNomination", { it.upsertNomination(NominationInput("n", "c")) }, nomination),
        Expected("revokeNomination", { it.revokeNomination() }, """{"revoked":false}"""),
        Expected("verifyConsentGate", { it.verifyConsent("cns_1") }, """{"decision":"allow","reason":"consent_active","consentId":"cns_1"}"""),
        Expected("listConsentGateDecisions", { it.listGateDecisions(GateDecisionsQuery(5)) }, """{"decisions":[],"nextCursor":null}"""),
        Expected("listConsentGateBypassAlerts", { it.listGateAlerts() }, """{"alerts":[],"windowMs":1,"denyThreshold":3,"nextCursor":null}"""),
        Expected("createOfflineConsentLink", { it.createOfflineConsentLink(CreateOfflineConsentLinkInput("ntc_1", "p", listOf("e"), "Counter 3")) }, """{"linkId":"olk_1","token":"t"}""", 201),
        Expected("syncOfflineCaptures", { it.syncOfflineCaptures(listOf(session)) }, """{"results":[{"clientSessionId":"s","status":"verified","consentIds":[]}]}"""),
        Expected("createPosConsentRequest", { it.createPosConsentRequest(PosConsentRequestInput("ntc_1", "p", listOf("phone"), "+91 98765 43210")) }, """{"requestId":"pos_1","token":"t","expiresAt":1}""", 201),
        Expected("recordIvrConsentArtifact", { it.recordIvrConsentArtifact(IvrConsentArtifactInput("ntc_1", "call", "s3://r", "en", "1", "h", 1, "sig", "p", listOf("phone"), "transcript")) }, """{"artifactId":"ivr_1","accepted":true,"consentId":"cns_1"}""", 201),
        Expected("withdrawConsentByToken", { it.withdrawConsentByToken("wdt_1") }, """{"withdrawn":[],"alreadyWithdrawn":[]}"""),
        Expected("listDueRetentions", { it.listDueRetentions(PageQuery(5, "c")) }, """{"due":[],"nextCursor":null}"""),
        Expected("listBreaches", { it.listBreaches(PageQuery(5, "c")) }, """{"breaches":[],"nextCursor":null}"""),
        Expected("listCrossBorderTransfers", { it.listCrossBorderTransfers(PageQuery(5, "c")) }, """{"transfers":[],"nextCursor":null}"""),
        Expected("confirmRetentionErasureExecuted", { it.confirmErasureExecuted("ser_1", ErasureExecutionInput(5)) }, """{"scheduledErasureId":"ser_1","status":"executed","executedAt":5}"""),
    )

    private val session = OfflineCaptureSession(
        "s", "dev_1", "ntc_1", 1, "en", "agent_app", 1, "sig", listOf("e"),
        listOf(OfflineCapturePurposeGrant("p", "P", "non_essential", "opt_in")),
    )

    @Test
    fun `every response model and every client call is checked`() {
        assertEquals(calls.map { it.operationId }.toSet(), responseModels.map { it.first }.toSet())
        val clientMethods = GuardClient::class.java.declaredMethods
            .filter { java.lang.reflect.Modifier.isPublic(it.modifiers) && !it.isSynthetic }
            .map { it.name }.toSet() - setOf("setAccessToken", "async", "close", "toBuilder", "getBaseUrl", "getTimeout", "getMaxRetries", "builder")
        // The page walkers are each a list method's companion (PagingTest), not calls of their own.
        val walkers = clientMethods.filter { it.startsWith("iterate") }.toSet()
        assertEquals(setOf("iterateNotices", "iterateDsrRequests", "iterateGrievances", "iterateGateDecisions", "iterateGateAlerts", "iterateDueRetentions", "iterateBreaches", "iterateCrossBorderTransfers"), walkers)
        assertEquals(30, (clientMethods - walkers).size, "client methods: $clientMethods")
        assertEquals((clientMethods - walkers).size, calls.size)
    }

    @TestFactory
    fun clientCallsMatchTheContract(): List<DynamicTest> = calls.map { expected ->
        DynamicTest.dynamicTest("client → ${expected.operationId}") {
            val op = operations[expected.operationId] ?: throw AssertionError("the contract has no operation ${expected.operationId}")
            val transport = FakeTransport(answer(expected.status, expected.answer))
            expected.call(fakeClient(transport) { accessToken("tok_principal") })
            val request: TransportRequest = transport.requests.single()
            assertEquals(op.method, request.method, "method")
            val pattern = Regex("^" + op.path.replace(Regex("\\{[^}]+}"), "[^/]+") + "$")
            assertTrue(pattern.matches(request.uri.rawPath), "${request.uri.rawPath} is not ${op.path}")
            val authorization = transport.header(0, "authorization")
            val credential = when (authorization) {
                null -> "none"
                "Bearer gk_test_key" -> "serviceKey"
                "Bearer tok_principal" -> "principalToken"
                else -> "?"
            }
            assertEquals(op.credential, credential, "credential")
            val takesKey = "Idempotency-Key" in op.parameters("header")
            assertEquals(takesKey, transport.header(0, "idempotency-key") != null, "Idempotency-Key")
            val sentQuery = request.uri.rawQuery?.split('&')?.map { it.substringBefore('=') }?.toSet() ?: emptySet()
            assertTrue(op.parameters("query").containsAll(sentQuery), "query $sentQuery not in ${op.parameters("query")}")
            if (request.body != null) {
                val body = GuardJson.parseToJsonElement(String(request.body, Charsets.UTF_8)) as kotlinx.serialization.json.JsonObject
                @Suppress("UNCHECKED_CAST")
                val declared = (unwrap(op.requestBody()).first["properties"] as Map<String, Any?>).keys
                assertTrue(declared.containsAll(body.keys), "body ${body.keys} not in $declared")
            } else {
                assertTrue(op.raw["requestBody"] == null || (op.raw["requestBody"] as Map<*, *>)["required"] != true, "the operation requires a body")
            }
        }
    }
}
