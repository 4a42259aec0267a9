// Builds dist/esm and dist/cjs from src/, with the contract's canonical modules and the transport
// shared with @guard/js copied in (../../scripts/build-typescript-sdk.mjs says how and why).
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildTypescriptSdk } from "../../scripts/build-typescript-sdk.mjs";

buildTypescriptSdk(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
