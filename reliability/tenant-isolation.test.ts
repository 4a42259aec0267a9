// Tenant isolation, generated from the served contract: every implemented operation that takes an
// id (path parameter, or a query/body field naming a record or an organisation) is called with
// organisation B's credential of each kind its `security` declares, and organisation A's ids. The
// answer must be the refusal the contract declares (404 NOT_FOUND unless EXPECTED says otherwise),
// must not carry A's data, and must leave every row of A exactly as it was.
//
// A new operation is covered without an edit here when its ids are of a kind FIXTURES builds; one
// that takes an id nobody can build fails the "every id-taking operation is covered" test until a
// fixture or a reasoned exclusion is added.
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { statusForCode, type ApiErrorCode } from "@guard/contract";
import {
  bodyProperties,
  fillPath,
  servedContract,
  type Operation,
  type ServedContract,
} from "./support/contract.js";
import { buildFixtures, SAMPLE_BODIES, type Ids } from "./support/fixtures.js";
import { buildIsolationFixtures, ISOLATION_BODIES } from "./support/isolation-fixtures.js";
import {
  bearer,
  publishNotice,
  seedOrg,
  startLiveServer,
  type LiveServer,
  type Org,
} from "./support/live-server.js";

/** Written into A's records wherever they hold free text; never to be seen by B. */
const CANARY = `canary-${randomBytes(6).toString("hex")}`;

/** A valid body per operation: the shared ones, and those of the records isolation-fixtures builds. */
const BODIES = { ...ISOLATION_BODIES, ...SAMPLE_BODIES };

/** Names of query/body fields that identify a record or an organisation. */
const ID_FIELD = /(^id|Id|^slug|^domain|^email)$/;

/**
 * Id-like fields that name no record of an organisation, so there is nothing to cross.
 * Key: field name; value: why.
 */
const FIELD_EXCLUSIONS: Record<string, string> = {
  externalId:
    "the caller's own user id: the same externalId at another organisation is another principal by design",
  cmRegistryId: "names the consent manager sending the signal, not a record Guard keeps",
  retentionPolicyId: "a free-text reference to the fiduciary's own retention policy, not a Guard record",
  partnerCallId:
    "a telephony partner's call id, a name each organisation keeps for itself (unique per organisation): the same id at another organisation is another call's artefact by design",
};

/** Operations the matrix does not call, and why. */
const OPERATION_EXCLUSIONS: Record<string, string> = {
  getOrgBySlug:
    "public by contract: the slug is the organisation itself, and its public profile is the answer",
  getNoticesForOrg: "public by contract: an organisation's published notices are for anyone to read",
  getResponsePeriods: "public by contract: the organisation's published response periods",
  getNoticeById: "public by contract: a published notice is readable by id without a credential",
  createStaffAccount:
    "email is the new account's sign-in name in the caller's own organisation, not a record of another: the same email in two organisations is two accounts by design",
  createStaffSession:
    "sign-in: slug, email and password are the credential (cross-organisation sign-in: server/test/http/tenant-isolation.test.ts)",
  brokerToken:
    "mints a token for the key's own organisation; externalId/email name the caller's own user, another principal per organisation",
  operatorCreateOrganization:
    "operator route: its only credential, operatorToken, is the deployment's and belongs to no organisation, so there is no organisation B to call it as; the slug names the organisation being created, not a record of an existing one",
  operatorDisableOrganization:
    "operator route: the deployment's operator acts on any organisation by design and belongs to none, so there is no organisation B to call it as (server/test/accounts/organization-status.test.ts: another organisation is untouched)",
  operatorEnableOrganization:
    "operator route: the deployment's operator acts on any organisation by design and belongs to none, so there is no organisation B to call it as",
};

/** Parameters and fields that name the organisation itself (public routes are scoped by them). */
const ORG_NAMING = new Set(["orgId", "slug", "organizationId", "id"]);

/**
 * Answers other than 404 NOT_FOUND that the contract declares for a cross-organisation call. `body`
 * members must match exactly; "own-namespace" means the id is a name each organisation keeps for
 * itself (a domain, an app id), so B acts on its own record of that name, if it has one: a 2xx or
 * 404 NOT_FOUND, and A's records untouched.
 */
interface Expected {
  status: number | "own-namespace";
  code?: ApiErrorCode;
  body?: Record<string, unknown>;
  why: string;
}

const EXPECTED: Record<string, Expected> = {
  createDsrRequest: {
    status: 400,
    code: "NOT_ASSOCIATED_WITH_ORG",
    why: "a principal naming an organisation it has no link to (errors.json)",
  },
  createGrievance: {
    status: 400,
    code: "NOT_ASSOCIATED_WITH_ORG",
    why: "a principal naming an organisation it has no link to (errors.json)",
  },
  staffListDsrRequests: {
    status: 400,
    code: "NOT_ASSOCIATED_WITH_ORG",
    why: "a staff caller naming another organisation in organizationId (errors.json)",
  },
  staffListGrievances: {
    status: 400,
    code: "NOT_ASSOCIATED_WITH_ORG",
    why: "a staff caller naming another organisation in organizationId (errors.json)",
  },
  createDomainGroup: {
    status: 400,
    code: "VALIDATION_ERROR",
    why: "noticeId must name a notice of the caller's organisation (field noticeId)",
  },
  deleteDomainGroup: {
    status: 200,
    body: { deleted: false },
    why: "the contract answers `deleted: false` when the caller has no such group",
  },
  linkAnonymousConsent: {
    status: 200,
    body: { linkedCount: 0, needsReconsent: [] },
    why: "anonymous ids are per organisation: B's principal links nothing of A's",
  },
  listScheduledErasures: {
    status: 200,
    body: { erasures: [], nextCursor: null },
    why: "policyId and userId filter the caller's own erasures: A's policy and principal match none of B's",
  },
  listPrincipalNotifications: {
    status: 200,
    body: { notifications: [], nextCursor: null },
    why: "subjectId filters the caller's own notifications: A's breach matches none of B's",
  },
  registerDomain: { status: "own-namespace", why: "domains are registered per organisation" },
  removeRegisteredDomain: { status: "own-namespace", why: "domains are registered per organisation" },
  saveDomainBannerSettings: { status: "own-namespace", why: "domains are registered per organisation" },
  removeDomainBannerSettings: { status: "own-namespace", why: "domains are registered per organisation" },
  registerApp: { status: "own-namespace", why: "app ids are registered per organisation" },
  removeRegisteredApp: { status: "own-namespace", why: "app ids are registered per organisation" },
  saveAppBannerSettings: { status: "own-namespace", why: "app ids are registered per organisation" },
  removeAppBannerSettings: { status: "own-namespace", why: "app ids are registered per organisation" },
};

const NOT_FOUND: Expected = {
  status: 404,
  code: "NOT_FOUND",
  why: "another organisation's record is not found",
};

interface IdInput {
  name: string;
  in: "path" | "query" | "body";
}

/** Every id the operation takes, by where it goes. */
function idInputs(contract: ServedContract, op: Operation): IdInput[] {
  const inputs: IdInput[] = [];
  for (const p of op.parameters) {
    if (p.in === "path" || (p.in === "query" && ID_FIELD.test(p.name)))
      inputs.push({ name: p.name, in: p.in });
  }
  for (const name of Object.keys(bodyProperties(contract, op.body))) {
    if (ID_FIELD.test(name)) inputs.push({ name, in: "body" });
  }
  return inputs;
}

describe("tenant isolation matrix (generated from the contract)", () => {
  let server: LiveServer;
  let contract: ServedContract;
  let a: Org;
  let b: Org;
  /** A's record of each id kind. */
  const ids: Ids = {};

  before(async () => {
    server = await startLiveServer();
    contract = await servedContract(server);
    a = await seedOrg(server, "a");
    b = await seedOrg(server, "b");
    await publishNotice(server, b); // B has a notice of its own, so "no notice" is not why it is refused
    Object.assign(ids, await buildFixtures(server, a, CANARY));
    Object.assign(ids, await buildIsolationFixtures(server, a, CANARY));
  });
  after(() => server?.close());

  /** A digest of every row of A in every table with an organization_id column. */
  async function fingerprintOfA(): Promise<Record<string, string>> {
    const tables = await server.db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.columns
        WHERE column_name = 'organization_id' AND table_schema = current_schema() ORDER BY table_name`,
    );
    const out: Record<string, string> = {};
    for (const { table_name: table } of tables) {
      const rows = await server.db.query(`SELECT * FROM ${table} WHERE organization_id = $1`, [
        a.org.organizationId,
      ]);
      const lines = rows.map((r) => JSON.stringify(r)).sort();
      out[table] = createHash("sha256").update(lines.join("\n")).digest("hex");
    }
    return out;
  }

  const credentials = (scheme: string): Record<string, string> => {
    if (scheme === "staffSession") return b.staff;
    if (scheme === "serviceKey") return bearer(b.apiKey);
    if (scheme === "principalToken") return bearer(b.principal.token);
    throw new Error(`no credential of org B for security scheme ${scheme}: add one to credentials()`);
  };

  /** The operations the matrix calls, with their id inputs. */
  const matrix = () =>
    contract.operations
      .map((op) => ({ op, inputs: idInputs(contract, op).filter((i) => !(i.name in FIELD_EXCLUSIONS)) }))
      .filter(({ op, inputs }) => inputs.length > 0 && !(op.operationId in OPERATION_EXCLUSIONS));

  test("every id-taking operation is covered: each id has a fixture or a reasoned exclusion", () => {
    const missing: string[] = [];
    for (const { op, inputs } of matrix()) {
      for (const input of inputs) {
        if (!(input.name in ids) && !(input.name in FIELD_EXCLUSIONS)) {
          missing.push(`${op.operationId}: ${input.in} ${input.name}`);
        }
      }
      if (op.bodyRequired && !BODIES[op.operationId]) missing.push(`${op.operationId}: a sample body`);
      if (op.security.length === 0 && !inputs.some((i) => !ORG_NAMING.has(i.name) && i.name in ids)) {
        missing.push(`${op.operationId}: public, with no record id to cross (exclude it with a reason)`);
      }
    }
    assert.deepEqual(
      missing,
      [],
      "add a fixture (ids), a SAMPLE_BODIES (or ISOLATION_BODIES) entry, or an exclusion with a reason",
    );
    for (const name of Object.keys(OPERATION_EXCLUSIONS)) {
      assert.ok(
        contract.operations.some((op) => op.operationId === name),
        `${name} is excluded but not served: drop the exclusion`,
      );
    }
  });

  test("organisation B, with every credential kind an operation accepts, cannot reach A's records", async () => {
    const failures: string[] = [];
    let calls = 0;
    for (const { op, inputs } of matrix()) {
      const idValues = Object.fromEntries(
        inputs.filter((i) => i.name in ids).map((i) => [i.name, ids[i.name]!]),
      );
      // Public routes are scoped by the organisation they name: name B's, and give A's other ids.
      const crossed =
        op.security.length === 0
          ? Object.fromEntries(
              Object.entries(idValues).map(([k, v]) => [k, ORG_NAMING.has(k) ? b.org.organizationId : v]),
            )
          : idValues;
      const query = new URLSearchParams();
      for (const input of inputs) {
        if (input.in === "query" && crossed[input.name] !== undefined)
          query.set(input.name, crossed[input.name]!);
      }
      const path = fillPath(op.path, crossed) + (query.size ? `?${query}` : "");
      const body = BODIES[op.operationId]?.({ ...ids, ...crossed });
      for (const scheme of op.security.length ? op.security : ["public"]) {
        const headers = scheme === "public" ? {} : credentials(scheme);
        const before = await fingerprintOfA();
        const res = await server.call(path, { method: op.method, headers, body });
        calls++;
        const where = `${op.operationId} as B (${scheme}) ${op.method} ${path}`;
        const expected = EXPECTED[op.operationId] ?? NOT_FOUND;
        const answer = JSON.parse(res.text || "{}") as Record<string, unknown>;
        if (expected.status === "own-namespace") {
          // B's own record of that name exists or not, depending on the calls before this one.
          const ownAnswer =
            (res.status >= 200 && res.status <= 299) || (res.status === 404 && answer.code === "NOT_FOUND");
          if (!ownAnswer) failures.push(`${where}: expected a 2xx or 404, got ${res.status} ${res.text}`);
        } else if (res.status !== expected.status) {
          failures.push(`${where}: expected ${expected.status}, got ${res.status} ${res.text.slice(0, 300)}`);
        } else if (
          expected.code &&
          (answer.code !== expected.code || statusForCode(expected.code) !== res.status)
        ) {
          failures.push(`${where}: expected code ${expected.code}, got ${res.text.slice(0, 300)}`);
        }
        for (const [key, value] of Object.entries(expected.body ?? {})) {
          if (JSON.stringify(answer[key]) !== JSON.stringify(value))
            failures.push(`${where}: ${key} of ${res.text}`);
        }
        if (res.text.includes(CANARY)) failures.push(`${where}: the answer carries A's data: ${res.text}`);
        if (res.text.includes(a.principal.email)) failures.push(`${where}: the answer names A's principal`);
        const after = await fingerprintOfA();
        for (const table of Object.keys(before)) {
          if (before[table] !== after[table]) failures.push(`${where}: changed A's rows in ${table}`);
        }
      }
    }
    console.log(`tenant isolation: ${calls} cross-organisation calls over ${matrix().length} operations`);
    assert.deepEqual(failures, []);
    assert.ok(
      calls >= 40,
      `the matrix made ${calls} calls; the contract has more id-taking operations than that`,
    );
  });

  test("control: A's own credential reads each of the same records (so a 404 above is not a bad fixture)", async () => {
    const failures: string[] = [];
    for (const { op, inputs } of matrix()) {
      if (op.method !== "GET" || op.security.length === 0) continue;
      const own: Record<string, string> = {};
      for (const i of inputs) if (ids[i.name] !== undefined) own[i.name] = ids[i.name]!;
      const query = new URLSearchParams();
      for (const i of inputs) if (i.in === "query" && own[i.name]) query.set(i.name, own[i.name]!);
      const path = fillPath(op.path, own) + (query.size ? `?${query}` : "");
      const scheme = op.security[0]!;
      const headers =
        scheme === "staffSession"
          ? a.staff
          : scheme === "serviceKey"
            ? bearer(a.apiKey)
            : bearer(a.principal.token);
      const res = await server.call(path, { headers });
      if (res.status !== 200)
        failures.push(`${op.operationId} as A: ${res.status} ${res.text.slice(0, 200)}`);
    }
    assert.deepEqual(failures, []);
  });
});
