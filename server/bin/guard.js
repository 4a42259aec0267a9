#!/usr/bin/env node
// The `guard` command. The server is TypeScript run through tsx (no build step), so this shim
// registers the loader and hands over to src/cli/main.ts.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
