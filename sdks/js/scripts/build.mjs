// Builds dist/esm and dist/cjs from src/ with the package's tsconfig, which has the DOM library and
// no Node types, so a Node-only API in src/ fails the build instead of reaching a browser. The
// transport shared with @guard/server is copied in (../../scripts/build-typescript-sdk.mjs says how).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildTypescriptSdk } from "../../scripts/build-typescript-sdk.mjs";

buildTypescriptSdk(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
