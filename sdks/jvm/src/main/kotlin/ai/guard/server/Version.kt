package ai.guard.server

/** This package, as named in the `X-Guard-SDK` header. VersionTest keeps [SDK_VERSION] equal to the pom's version. */
public const val SDK_PACKAGE: String = "ai.guard:server-sdk"

/** This release. Its major number names the contract generation, as in the rest of the SDK family. */
public const val SDK_VERSION: String = "1.3.0"
