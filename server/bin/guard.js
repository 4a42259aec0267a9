#!/usr/bin/env node
// The `guard` command. The server is TypeScript: it runs from a JavaScript build made once from
// the sources and remade when they change (build.js), so a start does not transpile. Where no
// build can be made (no esbuild, sources not writable), it runs the sources through tsx.
import { ensureServerBuild } from "./build.js";

let main;
try {
  ({ main } = await import(await ensureServerBuild()));
} catch (error) {
  if (process.env.GUARD_DEBUG_BUILD) console.error("guard: running from the sources:", error);
  const { register } = await import("tsx/esm/api");
  register();
  ({ main } = await import("../src/cli/main.ts"));
}
process.exitCode = await main(process.argv.slice(2));
