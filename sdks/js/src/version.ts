/** This package's version, sent as `X-Guard-SDK: @guard/js/<VERSION>` (a test keeps it equal to package.json). */
export const VERSION = "1.1.0";
export const PACKAGE_NAME = "@guard/js";
