// Hostile input across every served operation, generated from the contract: for each operation a
// valid request (SAMPLE_BODIES, real ids from buildFixtures, the credential its `security` names) is
// taken apart one piece at a time — every string field gets a lone surrogate, a NUL, a huge value;
// every property a wrong type; the body 10 000 levels deep (with and without Idempotency-Key); every
// query parameter undecodable bytes, a NUL, 100 kB, a wrong type; the request a 20 kB header, a
// 100 kB query, an oversized bearer token — plus malformed requests on a raw socket.
//
// Every answer is a 4xx in the catalog shape (`code` from contract/errors.json, with the catalog's
// status for it); the cases that can never be valid (surrogates, NULs, depth, framing) must be
// refused, the others may be accepted but never answered with a 5xx. Afterwards the server is still
// healthy and has logged no error.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { catalogEntryFor, isErrorCode } from "@guard/contract";
import {
  fillPath,
  servedContract,
  type Operation,
  type Schema,
  type ServedContract,
} from "./support/contract.js";
import { buildFixtures, SAMPLE_BODIES, type Ids } from "./support/fixtures.js";
import { call, parseRawAnswer, rawExchange, TransportError, type Answer } from "./support/http.js";
import { bearer, seedOrg, startLiveServer, type LiveServer, type Org } from "./support/live-server.js";

const DEPTH = 10_000;
const HUGE_STRING = "x".repeat(100_000);
const LONE_SURROGATE = "\ud800x";
const SLOW_CLIENT_MS = 2_000;

interface Probe {
  op: Operation;
  what: string;
  /** Refused for certain (4xx); otherwise any answer below 500 will do. */
  mustRefuse: boolean;
  path: string;
  headers: Record<string, string>;
  body?: unknown;
}

/** A minimal value for a schema, for operations without a SAMPLE_BODIES entry. */
function exampleOf(contract: ServedContract, schema: Schema, depth = 0): unknown {
  const s = contract.resolve(schema);
  if (depth > 6) return null;
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  if (s.example !== undefined) return s.example;
  if (Array.isArray(s.enum)) return s.enum[0];
  const branch = ((s.allOf ?? s.oneOf ?? s.anyOf) as Schema[] | undefined)?.[0];
  if (branch && !s.properties) return exampleOf(contract, branch, depth + 1);
  if (s.type === "object" || s.properties) {
    const out: Record<string, unknown> = {};
    for (const [name, prop] of Object.entries((s.properties as Record<string, Schema>) ?? {})) {
      out[name] = exampleOf(contract, prop, depth + 1);
    }
    return out;
  }
  if (s.type === "array") return [exampleOf(contract, (s.items as Schema) ?? {}, depth + 1)];
  if (s.type === "integer" || s.type === "number") return Number(s.minimum ?? 1);
  if (s.type === "boolean") return true;
  if (s.format === "email") return "someone@example.com";
  if (s.format === "uri") return "https://example.com/";
  return "text";
}

/** Every string leaf of a JSON value, as [path, setter] pairs on a fresh copy. */
function stringLeaves(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (typeof value === "string") return [path];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringLeaves(v, [...path, i]));
  if (value && typeof value === "object") {
    return Object.entries(value).flatMap(([k, v]) => stringLeaves(v, [...path, k]));
  }
  return [];
}

function withValueAt(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = replacement;
  return copy;
}

/** What is wrong with an error answer's status and body, or undefined when it is in the catalog shape. */
function catalogProblem(status: number, body: unknown): string | undefined {
  const text = JSON.stringify(body)?.slice(0, 200);
  if (status < 400 || status >= 500) return `${status} ${text}`;
  const code = (body as { code?: unknown } | undefined)?.code;
  if (typeof code !== "string") return `${status} without a code: ${text}`;
  if (!isErrorCode(code)) return `${status} with ${code}, which is not in the catalog`;
  const entry = catalogEntryFor(code);
  // Another status than the catalog's only where the catalog entry itself says so (ALREADY_CONSENTED's 400).
  if (entry.status !== status && !entry.description.includes(String(status))) {
    return `${status} with ${code}, which the catalog answers with ${entry.status}`;
  }
  return undefined;
}

describe("hostile input across every operation (generated from the contract)", () => {
  let server: LiveServer;
  let contract: ServedContract;
  let org: Org;
  let ids: Ids;
  const probes: Probe[] = [];

  before(async () => {
    // Short deadlines, so the slow-client cases end quickly (the defaults are a minute and more).
    server = await startLiveServer({
      config: { headersTimeoutMs: SLOW_CLIENT_MS, requestTimeoutMs: SLOW_CLIENT_MS },
    });
    contract = await servedContract(server);
    org = await seedOrg(server, "hostile");
    ids = await buildFixtures(server, org, `marker-${randomBytes(4).toString("hex")}`);
    // Ids nobody should be able to act on: a revoked key or a removed session would end the run.
    ids.apiKeyId = "key_hostileNeverExisted00";
    for (const op of contract.operations) probes.push(...probesFor(op));
  });
  after(() => server?.close());

  const credentialFor = (op: Operation): Record<string, string> => {
    const scheme = op.security[0];
    if (scheme === "staffSession") return org.staff;
    if (scheme === "serviceKey") return bearer(org.apiKey);
    if (scheme === "principalToken") return bearer(org.principal.token);
    return {};
  };

  function probesFor(op: Operation): Probe[] {
    const out: Probe[] = [];
    const pathValues: Record<string, string> = {};
    for (const p of op.parameters)
      if (p.in === "path") pathValues[p.name] = ids[p.name] ?? "xx_hostile00000000";
    const path = fillPath(op.path, pathValues);
    // Ending the staff session would end the run; its own hostile cases are header- and framing-level.
    const headers = op.operationId === "deleteStaffSession" ? {} : credentialFor(op);
    const idempotent = op.parameters.some(
      (p) => p.in === "header" && p.name.toLowerCase() === "idempotency-key",
    );
    const probe = (what: string, mustRefuse: boolean, extra: Partial<Probe>) =>
      out.push({ op, what, mustRefuse, path, headers, ...extra });

    if (op.body) {
      const base = SAMPLE_BODIES[op.operationId]?.(ids) ?? exampleOf(contract, op.body);
      for (const leaf of stringLeaves(base)) {
        const at = leaf.join(".");
        probe(`lone surrogate in ${at}`, true, { body: withValueAt(base, leaf, LONE_SURROGATE) });
        probe(`NUL in ${at}`, true, { body: withValueAt(base, leaf, "a\u0000b") });
        probe(`100 kB string in ${at}`, false, { body: withValueAt(base, leaf, HUGE_STRING) });
      }
      if (base && typeof base === "object" && !Array.isArray(base)) {
        probe("lone surrogate in a key", true, { body: { ...base, [LONE_SURROGATE]: "v" } });
        for (const [name, value] of Object.entries(base)) {
          const wrong = typeof value === "string" ? [12345, { nested: true }] : ["text", [1, 2]];
          for (const w of wrong)
            probe(`${JSON.stringify(w)} as ${name}`, false, { body: { ...base, [name]: w } });
        }
      }
      // Depth goes in an extra member of an otherwise valid body, so no schema check stops it before
      // the body is parsed, canonicalised (for the Idempotency-Key) and stored.
      const valid = JSON.stringify(base && typeof base === "object" && !Array.isArray(base) ? base : {});
      const withMember = (member: string) =>
        `${valid.slice(0, -1)}${valid === "{}" ? "" : ","}"extra":${member}}`;
      const raws: [string, string][] = [
        ["array body", "[]"],
        ["string body", '"text"'],
        ["null body", "null"],
        ["truncated JSON", '{"a":'],
        [`${DEPTH}-deep arrays`, withMember(`${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}`)],
        [`${DEPTH}-deep objects`, withMember(`${'{"a":'.repeat(DEPTH)}1${"}".repeat(DEPTH)}`)],
      ];
      for (const [name, raw] of raws) {
        probe(name, true, { body: raw });
        if (idempotent) {
          probe(`${name} with Idempotency-Key`, true, {
            body: raw,
            headers: { ...headers, "idempotency-key": `hostile-${randomBytes(6).toString("hex")}` },
          });
        }
      }
    }
    for (const p of op.parameters.filter((q) => q.in === "query")) {
      const numeric =
        p.schema.type === "integer" || p.schema.type === "number" || p.schema.type === "boolean";
      const q = (raw: string) => `${path}?${p.name}=${raw}`;
      // A lone surrogate cannot be spelled in UTF-8; its WTF-8 bytes decode to U+FFFD or stay escaped.
      probe(`surrogate bytes in ${p.name}`, false, { path: q("%ED%A0%80x") });
      probe(`NUL in ${p.name}`, true, { path: q("a%00b") });
      probe(`100 kB ${p.name}`, false, { path: q("x".repeat(100_000)) });
      if (numeric) probe(`text as ${p.name}`, true, { path: q("not-a-number") });
      probe(`${p.name} twice`, false, { path: `${q("a")}&${p.name}=b` });
    }
    if (idempotent) {
      probe("10 kB Idempotency-Key", false, {
        body: op.body ? (SAMPLE_BODIES[op.operationId]?.(ids) ?? {}) : undefined,
        headers: { ...headers, "idempotency-key": "k".repeat(10_000) },
      });
    }
    // Request-level limits: no credential beyond the hostile part, so nothing can take effect.
    probe("20 kB header", true, { headers: { "x-filler": "f".repeat(20_000) } });
    probe("100 kB query", true, { path: `${path}?q=${"q".repeat(100_000)}` });
    probe("20 kB bearer token", true, { headers: bearer("t".repeat(20_000)) });
    if (op.security.length) probe("4 kB bearer token", true, { headers: bearer("t".repeat(4_000)) });
    return out;
  }

  /** The problem with an answer, or undefined when it is acceptable. */
  function judge(probe: Probe, res: Answer): string | undefined {
    if (res.status >= 500) return `${res.status} ${res.text.slice(0, 200)}`;
    if (res.status < 400) return probe.mustRefuse ? `accepted (${res.status})` : undefined;
    let body: unknown;
    try {
      body = JSON.parse(res.text);
    } catch {
      return `${res.status} without a JSON body: ${res.text.slice(0, 120)}`;
    }
    return catalogProblem(res.status, body);
  }

  test("every operation is probed", () => {
    const probed = new Set(probes.map((p) => p.op.operationId));
    assert.deepEqual(
      contract.operations.map((op) => op.operationId).filter((id) => !probed.has(id)),
      [],
    );
    console.log(`hostile input: ${probes.length} requests over ${probed.size} operations`);
  });

  test("every hostile request is a 4xx in the catalog shape, never a 5xx", async () => {
    const failures: string[] = [];
    const queue = [...probes];
    const worker = async () => {
      for (let probe = queue.shift(); probe; probe = queue.shift()) {
        let res: Answer;
        try {
          res = await server.call(probe.path, {
            method: probe.op.method,
            headers: probe.headers,
            body: probe.body,
          });
        } catch (error) {
          if (!(error instanceof TransportError)) throw error;
          failures.push(`${probe.op.operationId}: ${probe.what}: no answer (${error.message})`);
          continue;
        }
        const problem = judge(probe, res);
        if (problem) failures.push(`${probe.op.operationId} ${probe.op.method}: ${probe.what}: ${problem}`);
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    assert.deepEqual(failures, [], `${failures.length} of ${probes.length} hostile requests`);
  });

  test("malformed requests on a raw socket get a catalog-shaped 4xx", async () => {
    const failures: string[] = [];
    for (const [what, raw] of [
      ["garbage request line", "GARBAGE\r\n\r\n"],
      ["unknown HTTP version", "GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n"],
      ["header without a colon", "GET /healthz HTTP/1.1\r\nHost: x\r\nbroken header\r\n\r\n"],
      ["control character in the path", "GET /heal\u0001thz HTTP/1.1\r\nHost: x\r\n\r\n"],
      [
        "content-length and chunked",
        "POST /api/v1/dsr HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      ],
      ["40 kB of headers", `GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: ${"a".repeat(40_000)}\r\n\r\n`],
    ] as const) {
      const answer = parseRawAnswer(await rawExchange(server.url, raw));
      const problem = catalogProblem(answer.status, answer.body);
      if (problem) failures.push(`${what}: ${problem}`);
    }
    assert.deepEqual(failures, []);
  });

  test("a client that stops sending mid-request is cut off: closed, or a catalog-shaped 4xx", async () => {
    const failures: string[] = [];
    for (const [what, raw] of [
      ["headers never finished", "GET /healthz HTTP/1.1\r\nHost: x\r\n"],
      [
        "body never finished",
        'POST /api/v1/dsr HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":',
      ],
    ] as const) {
      const started = Date.now();
      let reply: string;
      try {
        reply = await rawExchange(server.url, raw, SLOW_CLIENT_MS * 5);
      } catch (error) {
        failures.push(`${what}: ${(error as Error).message}`);
        continue;
      }
      if (reply === "") continue; // closed without a word: acceptable, the connection is gone
      const answer = parseRawAnswer(reply);
      const problem = catalogProblem(answer.status, answer.body);
      if (problem) failures.push(`${what}: after ${Date.now() - started} ms, ${problem}`);
    }
    assert.deepEqual(failures, []);
  });

  test("afterwards the server is healthy and logged no error", async () => {
    assert.equal((await call(server.url, "/healthz")).status, 200);
    assert.equal((await call(server.url, "/readyz")).status, 200);
    const errors = server.logs.filter((line) => /"level":(50|60)\b/.test(line));
    assert.deepEqual(
      errors.map((line) => line.slice(0, 300)),
      [],
    );
  });
});
