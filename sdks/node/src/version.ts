/** This package's version, sent as `X-Guard-SDK: @guard/server/<VERSION>` (a test keeps it equal to package.json). */
export const VERSION = "2.3.0";
export const PACKAGE_NAME = "@guard/server";
