package ai.guard.server

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test

class VersionTest {
    @Test
    fun `the X-Guard-SDK version is the pom's`() {
        val pomVersion = System.getProperty("guard.projectVersion") ?: error("run through Maven: guard.projectVersion is unset")
        assertEquals(pomVersion, SDK_VERSION)
        assertEquals("ai.guard:server-sdk", SDK_PACKAGE)
    }
}
