// A guest's consent is found by the guest's key, however many guests the organisation has: with
// tens of thousands of guest consents in the organisation (and another organisation's),
// anonymous capture's read of the guest's active consent and anonymous withdrawal's read of the
// consents given under the guest id are each planned as one range of an index on the guest's whole
// key (organisation, guest, notice, purpose): consents_by_guest_notice (migration 0093) or, for the
// active consent, consents_one_active_per_guest; on the statistics each engine keeps: the embedded database's statistics job
// (db/embedded-statistics.ts), a server's autovacuum. Never consents_by_principal, which holds every
// guest consent of the organisation under one key (principal_id NULL).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { createOrganization } from "../../src/accounts/organizations.js";
import { lockActiveConsent, lockGuestConsentsFor } from "../../src/consent/store.js";
import type { Database, Queryable, Row } from "../../src/db/database.js";
import { analyzeChangedTables } from "../../src/db/embedded-statistics.js";
import { parseNoticeDraft, publishNotice } from "../../src/notices/notices.js";
import { DEFAULT_ITEMIZED } from "../support/consent-fixtures.js";
import { engine, openTestDatabase } from "../support/harness.js";

// Guests' consents only, as a busy banner's organisation holds: the case the issue measured.
const GUESTS = 30_000;

/** Guest `n`'s anonymousId: a UUID, as the banner and the SDKs make them (the same as `guestIdSql`). */
const guestId = (n: number): string =>
  createHash("md5")
    .update(`guest-${n}`)
    .digest("hex")
    .replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, "$1-$2-$3-$4-$5");
const guestIdSql = (n: string) => `md5('guest-' || ${n})::uuid::text`;
const PURPOSE = DEFAULT_ITEMIZED[0]!.purpose;

/** A node of `EXPLAIN (FORMAT JSON)`. */
type PlanNode = {
  "Node Type": string;
  "Index Name"?: string;
  "Index Cond"?: string;
  Plans?: PlanNode[];
};

function scansOf(node: PlanNode, into: PlanNode[] = []): PlanNode[] {
  if (/Scan/.test(node["Node Type"])) into.push(node);
  for (const child of node.Plans ?? []) scansOf(child, into);
  return into;
}

/** The one statement `call` runs, as it would run it; nothing is executed. */
async function statementOf(
  call: (db: Queryable) => Promise<unknown>,
): Promise<{ sql: string; params: readonly unknown[] }> {
  const seen: { sql: string; params: readonly unknown[] }[] = [];
  await call({
    query: <T extends Row>(sql: string, params: readonly unknown[] = []) => {
      seen.push({ sql, params });
      return Promise.resolve([] as T[]);
    },
  });
  assert.equal(seen.length, 1);
  return seen[0]!;
}

describe("guest consent lookups among many guests", () => {
  let db: Database;
  let dispose: () => Promise<void>;
  let organizationId: string;
  let noticeId: string;

  /** Guests with one consent each, one in ten withdrawn. */
  async function seed(orgId: string, notice: string, guests: number): Promise<void> {
    await db.query(
      `INSERT INTO consents (organization_id, consent_id, anonymous_id, notice_id, notice_version, purpose,
                             data_types, source, given_at, withdrawn_at, withdrawal_reason, audit_hash,
                             audit_key_version)
       SELECT $1, 'cns_guest' || g, ${guestIdSql("g")}, $2, 1, $3, '["email"]', 'anonymous', g,
              CASE WHEN g % 10 = 0 THEN g + 1 END, CASE WHEN g % 10 = 0 THEN 'principal_request' END,
              'not-a-real-hash', 1
         FROM generate_series(1, $4::int) AS g`,
      [orgId, notice, PURPOSE, guests],
    );
  }

  async function newOrganization(slug: string): Promise<{ organizationId: string; noticeId: string }> {
    const org = await createOrganization(db, { slug, name: slug }, 0);
    const draft = parseNoticeDraft({
      key: "default",
      itemized: DEFAULT_ITEMIZED,
      content: { en: { title: "How we use your data", body: "Only for the purposes listed." } },
    });
    const notice = await publishNotice(db, org.organizationId, draft, 0);
    return { organizationId: org.organizationId, noticeId: notice.noticeId };
  }

  before(async () => {
    ({ db, dispose } = await openTestDatabase());
    ({ organizationId, noticeId } = await newOrganization("many-guests"));
    await seed(organizationId, noticeId, GUESTS);
    const other = await newOrganization("other");
    await seed(other.organizationId, other.noticeId, GUESTS / 10);
    if (engine === "pglite") {
      // What the embedded database's timer runs; the consents grew far past its threshold.
      assert.ok((await analyzeChangedTables(db)).includes("public.consents"));
    } else {
      // What the server's autovacuum runs once the table has changed this much.
      await db.query("ANALYZE consents");
    }
  });
  after(() => dispose());

  async function scans(statement: { sql: string; params: readonly unknown[] }): Promise<PlanNode[]> {
    const [row] = await db.query<{ "QUERY PLAN": { Plan: PlanNode }[] }>(
      `EXPLAIN (FORMAT JSON) ${statement.sql}`,
      statement.params,
    );
    return scansOf(row!["QUERY PLAN"][0]!.Plan);
  }

  /** One index scan, its condition the whole guest key; `indexes`: which may serve it. */
  function assertGuestKeyRange(found: PlanNode[], indexes: string[]): void {
    assert.equal(found.length, 1, JSON.stringify(found));
    const [scan] = found;
    assert.ok(indexes.includes(scan!["Index Name"] ?? ""), JSON.stringify(found));
    for (const column of ["organization_id", "anonymous_id", "notice_id", "purpose"]) {
      assert.match(scan!["Index Cond"] ?? "", new RegExp(`\\b${column} =`), JSON.stringify(found));
    }
  }

  test("anonymous capture's read of the guest's active consent is a range of the guest's key", async () => {
    for (const anonymousId of [guestId(12_345), guestId(GUESTS + 1)]) {
      const statement = await statementOf((tx) =>
        lockActiveConsent(tx, organizationId, { anonymousId }, noticeId, PURPOSE),
      );
      // Either index holds the whole key; the unique one holds only the guests' active consents.
      assertGuestKeyRange(await scans(statement), [
        "consents_one_active_per_guest",
        "consents_by_guest_notice",
      ]);
    }
  });

  test("anonymous withdrawal's read of the consents given under the guest id is a range of the guest's key", async () => {
    for (const anonymousId of [guestId(12_345), guestId(GUESTS + 1)]) {
      const statement = await statementOf((tx) =>
        lockGuestConsentsFor(tx, organizationId, anonymousId, noticeId, PURPOSE),
      );
      assertGuestKeyRange(await scans(statement), ["consents_by_guest_notice"]);
    }
  });

  test("the lookups still find the guest's consents", async () => {
    const active = await db.transaction((tx) =>
      lockActiveConsent(tx, organizationId, { anonymousId: guestId(12_345) }, noticeId, PURPOSE),
    );
    assert.equal(active?.consentId, "cns_guest12345");
    const withdrawn = await db.transaction((tx) =>
      lockActiveConsent(tx, organizationId, { anonymousId: guestId(12_340) }, noticeId, PURPOSE),
    );
    assert.equal(withdrawn, undefined, "a withdrawn consent is not the guest's active one");
    const given = await db.transaction((tx) =>
      lockGuestConsentsFor(tx, organizationId, guestId(12_340), noticeId, PURPOSE),
    );
    assert.deepEqual(
      given.map((consent) => [consent.consentId, consent.withdrawnAt]),
      [["cns_guest12340", 12_341]],
    );
  });
});
