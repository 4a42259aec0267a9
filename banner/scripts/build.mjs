// Builds the hosted banner: one minified IIFE (ES2019, so older phone browsers run it) at
// dist/guard.js, and dist/manifest.json, which the server reads at start to serve the file, its
// content-addressed name (first 16 hex of the sha256) and the SRI hash the Integrations snippet shows.
// A source map is written beside it for debugging but never referenced from the served file, so
// visitors do not download it and the served bytes stay those the integrity hash covers.
// Runs on every `npm start`, so it must stay fast (esbuild, no type check: tsc does that).
import { build } from "esbuild";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dist = path.join(root, "dist");
const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));

fs.mkdirSync(dist, { recursive: true });
const result = await build({
  entryPoints: [path.join(root, "src", "main.ts")],
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "es2019",
  minify: true,
  legalComments: "none",
  sourcemap: "external",
  write: false,
  outdir: dist,
  logLevel: "warning",
});

let code;
for (const file of result.outputFiles) {
  const name = path.basename(file.path);
  if (name === "main.js") code = file.contents;
  else if (name === "main.js.map") fs.writeFileSync(path.join(dist, "guard.js.map"), file.contents);
}
if (!code) throw new Error("esbuild produced no main.js");
// esbuild ends the file with a sourceMappingURL comment when the map is external: strip it.
const text = Buffer.from(code)
  .toString("utf8")
  .replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, "\n");
const bytes = Buffer.from(text, "utf8");

const manifest = {
  file: "guard.js",
  bytes: bytes.length,
  gzipBytes: zlib.gzipSync(bytes, { level: 9 }).length,
  sha256: crypto.createHash("sha256").update(bytes).digest("hex"),
  integrity: `sha384-${crypto.createHash("sha384").update(bytes).digest("base64")}`,
  version,
};
fs.writeFileSync(path.join(dist, "guard.js"), bytes);
fs.writeFileSync(path.join(dist, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
console.error(
  `built ${path.relative(process.cwd(), path.join(dist, "guard.js")) || "guard.js"}: ${manifest.bytes} bytes, ${manifest.gzipBytes} gzipped`,
);
