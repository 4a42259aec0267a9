// Lint rules are part of `npm test`, so style never becomes a review topic.
import js from "@eslint/js";
import fs from "node:fs";
import tseslint from "typescript-eslint";

// The server's layering (ARCHITECTURE.md, "Layers, and who may import whom"). server/test/architecture
// checks the same arrows, and that only a domain's store names its tables in SQL. Every folder of
// server/src/ is held to the domain rule except the frame, the CLI, the demo seed, the static web
// edge (web/: the banner script and demo page) and generated code,
// as that test counts them, so a new domain folder is checked without an edit here.
const NOT_DOMAINS = new Set(["http", "db", "lib", "generated", "cli", "demo", "web"]);
const DOMAINS = fs
  .readdirSync(new URL("./server/src/", import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !NOT_DOMAINS.has(entry.name))
  .map((entry) => entry.name);
const HTTP_AND_EDGE = ["**/http/*", "**/access/*", "**/cli/*", "fastify", "@fastify/*", "**/routes.js"];
const ANY_DOMAIN_OR_EDGE = [
  ...DOMAINS.map((d) => `../${d}/*`),
  "../cli/*",
  "../routes.js",
  "../server.js",
  "../app.js",
];

export default tseslint.config(
  {
    ignores: [
      "**/node_modules/**",
      "**/dist/**",
      // The server's and contract's builds (server/bin/build.js), made from the checked sources.
      "server/.build-*/**",
      "contract/.build-*/**",
      ".guard-data/**",
      ".venv/**",
      ".test-tmp/**",
      "**/.mypy_cache/**",
      "sdks/**/build/**",
      "sdks/**/target/**",
      // Written by openapi-typescript (sdks/node/scripts/generate-types.ts), checked for staleness by a test.
      "sdks/node/src/generated/**",
      "sdks/js/src/generated/**",
      "sdks/typescript-shared/src/generated/**",
      "server/src/generated/**",
      // Written by openapi-typescript (dashboard/scripts/generate-types.ts), checked by dashboard/test.
      "dashboard/src/api/schema.ts",
      "dashboard/test/browser/screenshots/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        URL: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        Buffer: "readonly",
        fetch: "readonly",
        AbortController: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
        TextEncoder: "readonly",
      },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-console": "off",
    },
  },
  {
    // Domain rules and stores: no HTTP, no Fastify types, no route module; failures are lib/failure.ts's.
    files: DOMAINS.map((d) => `server/src/${d}/**/*.ts`),
    // A domain with sub-areas (offline/) keeps each one's routes in <area>/routes.ts; its
    // server-rendered principal pages are HTTP edge code too (<area>/page.ts, and their toolkit
    // offline/pages/: the HTML counterpart of a route module).
    ignores: [
      "server/src/*/routes.ts",
      "server/src/*/*/routes.ts",
      "server/src/*/*/page.ts",
      "server/src/offline/pages/**/*.ts",
    ],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: HTTP_AND_EDGE,
              message:
                "Domain code knows nothing of HTTP: throw a Failure (lib/failure.ts) and let routes.ts decide.",
            },
          ],
        },
      ],
    },
  },
  {
    // The frame (http/, db/, lib/) is handed what it runs; it imports no domain and no edge module.
    files: ["server/src/http/**/*.ts", "server/src/db/**/*.ts", "server/src/lib/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ANY_DOMAIN_OR_EDGE,
              message: "The frame imports no domain: take what it needs as a parameter (see buildApp).",
            },
          ],
        },
      ],
    },
  },
  {
    // The demo shop page's own scripts run in a browser.
    files: ["server/src/demo/shop/**/*.js"],
    languageOptions: { globals: { window: "readonly", document: "readonly" } },
  },
);
