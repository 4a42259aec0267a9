// An organisation with a small, known audit chain for the log-retention tests: which entries a
// purge may take is fixed by what the kept records still need.
import assert from "node:assert/strict";
import { createOrganization } from "../../src/accounts/organizations.js";
import { ensurePrincipal } from "../../src/accounts/principals.js";
import type { AuditKeys } from "../../src/audit/keys.js";
import { linkQueuedOf } from "../../src/audit/sequencer.js";
import { readChainPage } from "../../src/audit/store.js";
import { giveConsent } from "../../src/consent/consents.js";
import type { Database } from "../../src/db/database.js";
import type { ManualClock } from "../../src/lib/clock.js";
import { parseNoticeDraft, publishNotice } from "../../src/notices/notices.js";
import { setResponsePeriods } from "../../src/rights/settings.js";
import { updateOrganizationSettings } from "../../src/settings/organization-settings.js";

export const DAY = 24 * 60 * 60 * 1000;
export const STAFF = { kind: "staff", id: "stf_logs" } as const;

export interface History {
  organizationId: string;
  consentId: string;
  /** Creation time of each position, as linked. */
  createdAt: Map<number, number>;
}

/**
 * An organisation whose chain holds, in order: two settings changes, two changes of the response
 * periods and a consent given (all on day 0), then a third settings change on day 200. Of the day-0
 * entries only the last periods change and the consent are still needed by kept records.
 */
export async function history(
  db: Database,
  clock: ManualClock,
  keys: AuditKeys,
  slug: string,
): Promise<History> {
  const tick = () => {
    clock.advance(1000);
    return clock.now();
  };
  const org = await createOrganization(db, { slug, name: slug }, tick());
  const organizationId = org.organizationId;
  const notice = await publishNotice(
    db,
    organizationId,
    parseNoticeDraft({
      itemized: [{ purpose: "Account", personalDataDescription: "Email." }],
      content: { en: { title: "Notice", body: "Body" } },
    }),
    tick(),
  );
  const { principalId } = await ensurePrincipal(db, { organizationId, externalId: "u1" }, tick());
  const settings = (value: boolean) =>
    db.transaction((tx) =>
      updateOrganizationSettings(
        tx,
        { organizationId, patch: { blockTrackingForChildren: value }, actor: STAFF },
        tick(),
      ),
    );
  await settings(true); // seq 1
  await linkQueuedOf(db, organizationId, clock.now());
  await settings(false); // seq 2
  await linkQueuedOf(db, organizationId, clock.now());
  for (const days of [40, 50]) {
    // seq 3, 4
    await db.transaction((tx) =>
      setResponsePeriods(
        tx,
        { organizationId, dsrResponseDays: days, grievanceResponseDays: days, actor: STAFF },
        tick(),
      ),
    );
    await linkQueuedOf(db, organizationId, clock.now());
  }
  const consent = await db.transaction((tx) =>
    giveConsent(
      tx,
      { auditKeys: keys },
      {
        organizationId,
        holder: { kind: "principal", principalId, externalId: "u1" },
        notice: { noticeId: notice.noticeId, version: notice.version },
        purpose: "Account",
        dataTypes: ["email"],
        source: "direct",
      },
      tick(),
    ),
  ); // seq 5
  await linkQueuedOf(db, organizationId, clock.now());
  clock.advance(200 * DAY);
  await settings(true); // seq 6
  await linkQueuedOf(db, organizationId, clock.now());
  const entries = await readChainPage(db, organizationId, 1, 100);
  assert.deepEqual(
    entries.map((e) => e.entryType),
    [
      "organization.settings_changed",
      "organization.settings_changed",
      "rights.response_periods_changed",
      "rights.response_periods_changed",
      "consent.given",
      "organization.settings_changed",
    ],
  );
  return {
    organizationId,
    consentId: consent.consentId,
    createdAt: new Map(entries.map((e) => [e.seq, e.createdAt])),
  };
}
