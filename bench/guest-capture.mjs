// Anonymous capture on the embedded database as an organisation's guests grow:
//   node --import tsx bench/guest-capture.mjs [GUESTS,...] [CAPTURES]
// For each guest count (default 1000,60000) and each variant, a fresh PGlite in a temp data
// directory holds an organisation with that many guest consents, then gives CAPTURES (default 2000)
// consents of new guests one after another through giveConsent in one transaction each (the
// capture's database work, without HTTP), and prints ms per capture (mean, p50, p99) and the index
// the guest lookup is planned on.
//   before  the schema and statistics Guard had before: consents_by_guest (organization_id,
//           anonymous_id) instead of consents_by_guest_notice, and no ANALYZE ever
//   after   as shipped: migration 0093, and the statistics job's run (db/embedded-statistics.ts)
//           that the database's timer makes within a minute of the seeding
// The guests' consents are shaped as the benchmark target's (bench/target-server.mjs): bench-guest-N
// ids, one in ten withdrawn.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createOrganization } from "../server/src/accounts/organizations.ts";
import { testConfig } from "../server/src/config.ts";
import { giveConsent } from "../server/src/consent/consents.ts";
import { openDatabase } from "../server/src/db/database.ts";
import { analyzeChangedTables } from "../server/src/db/embedded-statistics.ts";
import { migrate } from "../server/src/db/migrate.ts";
import { DEMO_NOTICE } from "../server/src/demo/seed.ts";
import { parseNoticeDraft, publishNotice } from "../server/src/notices/notices.ts";

const guestCounts = (process.argv[2] ?? "1000,60000").split(",").map(Number);
const captures = Number(process.argv[3] ?? 2000);
const config = testConfig({});
const purpose = DEMO_NOTICE.itemized[0].purpose;

async function capture(db, organizationId, notice, anonymousId, now) {
  return db.transaction((tx) =>
    giveConsent(
      tx,
      { auditKeys: config.auditKeys },
      {
        organizationId,
        holder: { kind: "guest", anonymousId },
        notice: { noticeId: notice.noticeId, version: notice.version },
        purpose,
        dataTypes: ["email"],
        source: "anonymous",
      },
      now,
    ),
  );
}

async function lookupIndex(db, organizationId, noticeId) {
  const rows = await db.query(
    `EXPLAIN SELECT consent_id FROM consents
      WHERE organization_id = $1 AND anonymous_id = $2 AND principal_id IS NULL
        AND notice_id = $3 AND purpose = $4 AND withdrawn_at IS NULL FOR UPDATE`,
    [organizationId, "bench-guest-new", noticeId, purpose],
  );
  const scan = rows.map((row) => row["QUERY PLAN"]).find((line) => /Scan/.test(line));
  return scan?.match(/(Index Scan using \S+|Seq Scan)/)?.[1] ?? scan?.trim();
}

async function run(guests, variant) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-guest-capture-"));
  const db = await openDatabase({ dataDir });
  try {
    await migrate(db);
    if (variant === "before") {
      await db.query("DROP INDEX consents_by_guest_notice");
      await db.query("CREATE INDEX consents_by_guest ON consents (organization_id, anonymous_id)");
    }
    const now = Date.now();
    const org = await createOrganization(db, { slug: "bench", name: "Bench" }, now);
    const notice = await publishNotice(db, org.organizationId, parseNoticeDraft(DEMO_NOTICE), now);
    // Only the consents table matters to the guest lookup, so the guests' consents are written
    // directly, in one statement (their events, chain entries and outbox rows would take minutes).
    await db.query(
      `INSERT INTO consents (organization_id, consent_id, anonymous_id, notice_id, notice_version, purpose,
                             data_types, source, given_at, withdrawn_at, withdrawal_reason, audit_hash,
                             audit_key_version)
       SELECT $1, 'cns_seed' || g, 'bench-guest-' || g, $2, $3, $4, '["email"]', 'anonymous', $5::bigint,
              CASE WHEN g % 10 = 9 THEN $5::bigint END, CASE WHEN g % 10 = 9 THEN 'principal_request' END,
              'seeded', 1
         FROM generate_series(0, $6::int - 1) AS g`,
      [org.organizationId, notice.noticeId, notice.version, purpose, now, guests],
    );
    if (variant === "after") await analyzeChangedTables(db);
    const plan = await lookupIndex(db, org.organizationId, notice.noticeId);
    const times = [];
    for (let i = 0; i < captures; i += 1) {
      const started = performance.now();
      await capture(db, org.organizationId, notice, `bench-new-guest-${i}`, now);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const mean = times.reduce((sum, t) => sum + t, 0) / times.length;
    const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
    console.log(
      JSON.stringify({
        guests,
        variant,
        captures,
        meanMs: +mean.toFixed(3),
        p50Ms: +at(0.5).toFixed(3),
        p99Ms: +at(0.99).toFixed(3),
        capturesPerSecond: Math.round(1000 / mean),
        guestLookup: plan,
      }),
    );
  } finally {
    await db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

for (const guests of guestCounts) {
  for (const variant of ["before", "after"]) await run(guests, variant);
}
