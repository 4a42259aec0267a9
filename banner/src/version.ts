/** The banner's version: `Guard.version` and the manifest's (a test keeps it equal to package.json). */
export const VERSION = "1.0.0";
