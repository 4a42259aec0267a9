// Writes the golden vectors in contract/vectors/ from the fixed inputs in contract/scripts/vectors/
// (one module per family: audit-hash.ts, webhook-signature.ts, capture-artifact.ts).
//
//   node --import tsx contract/scripts/generate-vectors.ts            # write (keeps ECDSA keys and signatures)
//   node --import tsx contract/scripts/generate-vectors.ts --check    # exit 1 if a file would change
//   node --import tsx contract/scripts/generate-vectors.ts --force    # new ECDSA keys and signatures
//
// Everything is deterministic except ECDSA signing, which is randomised: the test keys and every
// signature already in capture-artifact.json are kept, and only a case that is new (or whose canonical
// string changed) is signed afresh. `--force` makes new keys and re-signs everything; that changes the
// published vectors, so it needs the same review as any other vector change.
// The expected values come from the implementation under test, so contract/vectors/README.md keeps
// an independent cross-check, and contract/test/canonical.test.ts checks that the builders still
// reproduce the committed files. Files are written through prettier, as the repository formats JSON.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { buildAllVectors, VECTORS_DIR } from "./vectors/index.js";

async function main(args: string[]): Promise<number> {
  const unknown = args.filter((arg) => arg !== "--force" && arg !== "--check");
  if (unknown.length > 0) {
    console.error(`unknown argument(s): ${unknown.join(" ")}`);
    return 2;
  }
  const check = args.includes("--check");
  const prettier = await import("prettier");
  let stale = 0;
  for (const [name, content] of Object.entries(buildAllVectors({ force: args.includes("--force") }))) {
    const path = VECTORS_DIR + name;
    const options = (await prettier.resolveConfig(path)) ?? {};
    const text = await prettier.format(JSON.stringify(content), { ...options, filepath: path });
    const current = existsSync(path) ? readFileSync(path, "utf8") : undefined;
    if (current === text) continue;
    stale += 1;
    if (check) console.error(`${name} is out of date`);
    else {
      writeFileSync(path, text);
      console.log(`wrote ${name} (${String(content.numberOfCases)} cases)`);
    }
  }
  return check && stale > 0 ? 1 : 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
