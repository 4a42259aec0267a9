package ai.guard.server

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test
import java.nio.file.Files
import java.nio.file.Paths

/**
 * The README's quick starts are compiled: they are copies of src/test/kotlin/readme/QuickStart.kt and
 * src/test/java/readme/QuickStart.java (the Java one with release 11), and this test keeps the copies equal.
 */
class ReadmeTest {
    private val readme = Files.readString(Paths.get("README.md"))

    private fun block(language: String): String =
        Regex("```$language\\n(.*?)```", RegexOption.DOT_MATCHES_ALL).find(readme)?.groupValues?.get(1)
            ?: throw AssertionError("README.md has no $language block")

    private fun source(path: String, packageLine: String): String =
        Files.readString(Paths.get(path)).removePrefix("$packageLine\n\n")

    @Test
    fun `the Kotlin quick start is the compiled one`() {
        assertEquals(source("src/test/kotlin/readme/QuickStart.kt", "package readme"), block("kotlin"))
    }

    @Test
    fun `the Java quick start is the compiled one`() {
        assertEquals(source("src/test/java/readme/QuickStart.java", "package readme;"), block("java"))
    }
}
