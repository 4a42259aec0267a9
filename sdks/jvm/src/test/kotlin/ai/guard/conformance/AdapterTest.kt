package ai.guard.conformance

import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.io.ByteArrayOutputStream
import java.io.PrintStream
import java.nio.file.Files
import java.nio.file.Path

/** The adapter can fail: its matcher rejects what it should, and its bookkeeping counts STALE and unknown ids. */
class AdapterTest {
    private val scope = Scope(Json.parseToJsonElement("""{"noticeId":"ntc_1","nothing":null}""") as JsonObject, "jvmtest")

    private fun json(text: String): JsonElement = Json.parseToJsonElement(text)

    private fun matches(actual: String, expected: String) = mismatch(json(actual), json(expected), scope, "result")

    @Test
    fun `the matcher accepts what the README says and rejects the rest`() {
        assertNull(matches("""{"a":1,"b":[1,2],"c":"x"}""", """{"a":1.0,"b":[1,2]}"""))
        assertNotNull(matches("""{"a":1}""", """{"a":2}"""))
        assertNotNull(matches("""{"a":1}""", """{"b":1}"""))
        assertNotNull(matches("""{"b":[1,2]}""", """{"b":[1]}"""))
        assertNull(matches("""{"a":1}""", """{"b":{"${'$'}absent":true}}"""))
        assertNotNull(matches("""{"b":null}""", """{"b":{"${'$'}absent":true}}"""), "present with null is not absent")
        assertNull(matches("""{"b":null}""", """{"b":null}"""))
        assertNull(matches("7", """{"${'$'}type":"integer"}"""))
        assertNull(matches("7", """{"${'$'}type":"number"}"""))
        assertNotNull(matches("7.5", """{"${'$'}type":"integer"}"""))
        assertNotNull(matches("\"7\"", """{"${'$'}type":"integer"}"""))
        assertNull(matches("\"v1,abc\"", """{"${'$'}regex":"^v1,"}"""))
        assertNotNull(matches("\"v2,abc\"", """{"${'$'}regex":"^v1,"}"""))
        assertNull(matches("[{\"s\":1},{\"s\":2}]", """{"${'$'}contains":{"s":2}}"""))
        assertNotNull(matches("[{\"s\":1}]", """{"${'$'}contains":{"s":2}}"""))
        assertNull(matches("\"abc\"", """{"${'$'}length":3}"""))
        assertNotNull(matches("[1]", """{"${'$'}length":2}"""))
        assertNull(matches("\"ntc_2\"", """{"${'$'}not":{"${'$'}fixture":"noticeId"}}"""))
        assertNotNull(matches("\"ntc_1\"", """{"${'$'}not":{"${'$'}fixture":"noticeId"}}"""))
        assertNotNull(matches("3", """{"${'$'}all":[{"${'$'}type":"integer"},5]}"""))
        scope.vars["first"] = json("""{"x":[1,{"y":true}]}""")
        assertNull(matches("""{"x":[1,{"y":true}]}""", """{"${'$'}ref":"first"}"""))
        assertNotNull(matches("""{"x":[1,{"y":true}],"z":0}""", """{"${'$'}ref":"first"}"""), "a value form is deep equality")
    }

    @Test
    fun `values resolve, and a missing or null fixture fails the step`() {
        assertEquals(JsonPrimitive("ntc_1-x"), resolve(json("""{"${'$'}concat":[{"${'$'}fixture":"noticeId"},"-x"]}"""), scope))
        assertEquals(JsonPrimitive("user-jvmtest-1"), resolve(json("""{"${'$'}unique":"user"}"""), scope))
        org.junit.jupiter.api.Assertions.assertThrows(StepFailure::class.java) { resolve(json("""{"${'$'}fixture":"nope"}"""), scope) }
        org.junit.jupiter.api.Assertions.assertThrows(StepFailure::class.java) { resolve(json("""{"${'$'}fixture":"nothing"}"""), scope) }
    }

    @Test
    fun `PASS, FAIL, STALE and unknown listed ids are counted as the README says`(@TempDir root: Path) {
        val scenarios = Files.createDirectories(root.resolve("scenarios"))
        fun scenario(id: String, expected: Boolean) = Files.writeString(
            scenarios.resolve("$id.json"),
            """{"id":"$id","clients":{},"steps":[{"call":"hasConsent","args":[[{"purpose":"Marketing"}],"Marketing"],"expect":{"result":$expected}}]}""",
        )
        scenario("a-passes", true)
        scenario("b-fails", false)
        scenario("c-listed-but-passes", true)
        scenario("d-listed-and-fails", false)
        Files.createDirectories(root.resolve("expected-failures"))
        Files.writeString(
            root.resolve("expected-failures/jvm.json"),
            """{"sdk":"jvm","expectedFailures":[{"id":"c-listed-but-passes","reason":"r"},{"id":"d-listed-and-fails","reason":"r"},{"id":"no-such-scenario","reason":"r"}]}""",
        )
        val out = ByteArrayOutputStream()
        val original = System.out
        val counts = try {
            System.setOut(PrintStream(out, true, "UTF-8"))
            runSuite(scenarios, JsonObject(emptyMap()), emptyList(), verbose = false)
        } finally {
            System.setOut(original)
        }
        val lines = out.toString(Charsets.UTF_8).lines().filter { it.isNotEmpty() }
        assertEquals(1 to 3, counts, lines.joinToString("\n"))
        assertEquals(
            listOf("FAIL no-such-scenario", "PASS a-passes", "FAIL b-fails", "STALE c-listed-but-passes", "XFAIL d-listed-and-fails", "conformance: 1 passed, 3 failed"),
            lines.map { it.substringBefore(':').let { head -> if (head.startsWith("conformance")) it else head } },
        )
    }
}
