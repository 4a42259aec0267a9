// The layering of ARCHITECTURE.md, checked: a domain's tables are named in SQL only by its store;
// domains and stores know nothing of HTTP (no http/ import, no Fastify types); the frame (http/,
// db/, lib/) imports no domain. eslint.config.js enforces the same import arrows as you type;
// this test keeps them in `npm test` with a list of every offence.
import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { importsOf, relativeToSrc, sourceFiles, tableTrespasses, TABLE_OWNERS } from "./ownership.js";

const FRAME = new Set(["http", "db", "lib", "generated"]);
// The composition modules, as imports name them. config.js is not one: the frame is handed the parsed
// configuration and may name its type.
const COMPOSITION = new Set(["routes.js", "server.js", "app.js"]);

const files = sourceFiles().map((full) => ({ full, file: relativeToSrc(full) }));
const folderOf = (file: string) => (file.includes("/") ? file.split("/")[0]! : "");
const domainFolders = new Set(
  files.map((f) => folderOf(f.file)).filter((d) => d && !FRAME.has(d) && !["cli", "demo", "web"].includes(d)),
);

/**
 * Where HTTP meets a domain's rules: its routes.ts, a sub-area's (offline/ivr/routes.ts), a
 * principal page's handlers (offline/pos/page.ts), and offline/pages/, the frame those
 * server-rendered pages share. The same exemptions as eslint.config.js.
 */
const meetsHttp = (file: string): boolean =>
  /^[^/]+\/(?:[^/]+\/)?(?:routes|page)\.ts$/.test(file) || file.startsWith("offline/pages/");

/** The src/ folder an import lands in, or undefined for a package. */
function importedFolder(fromFile: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), specifier));
  return target.startsWith("..") ? undefined : folderOf(target) || target;
}

describe("architecture boundaries", () => {
  test("every table has an owner, and only the owner's store names it in SQL", () => {
    const offences = tableTrespasses().map(
      (t) => `${t.file}:${t.line} names ${t.table} (owned by ${t.owner})`,
    );
    assert.deepEqual(offences, [], `SQL outside its owner:\n${offences.join("\n")}`);
    assert.ok(Object.keys(TABLE_OWNERS).length > 20);
  });

  test("domain rules and stores import nothing of HTTP", () => {
    const offences: string[] = [];
    for (const { full, file } of files) {
      const folder = folderOf(file);
      if (!domainFolders.has(folder) || meetsHttp(file)) continue;
      for (const specifier of importsOf(full)) {
        if (specifier === "fastify" || specifier.startsWith("@fastify/"))
          offences.push(`${file} imports ${specifier}`);
        if (importedFolder(file, specifier) === "http") offences.push(`${file} imports ${specifier}`);
      }
    }
    assert.deepEqual(offences, [], offences.join("\n"));
  });

  test("the frame (http/, db/, lib/) imports no domain and no route module", () => {
    const offences: string[] = [];
    for (const { full, file } of files) {
      if (!FRAME.has(folderOf(file))) continue;
      for (const specifier of importsOf(full)) {
        const folder = importedFolder(file, specifier);
        if (folder && (domainFolders.has(folder) || folder === "cli" || COMPOSITION.has(folder)))
          offences.push(`${file} imports ${specifier}`);
      }
    }
    assert.deepEqual(offences, [], offences.join("\n"));
  });

  test("no module imports another domain's routes", () => {
    const offences: string[] = [];
    for (const { full, file } of files) {
      for (const specifier of importsOf(full)) {
        if (!specifier.endsWith("/routes.js")) continue;
        // The composition root (top-level modules) lists every domain's routes; nothing else may.
        const folder = importedFolder(file, specifier);
        if (folder && domainFolders.has(folder) && folder !== folderOf(file) && folderOf(file) !== "")
          offences.push(`${file} imports ${specifier}`);
      }
    }
    assert.deepEqual(offences, [], offences.join("\n"));
  });
});
