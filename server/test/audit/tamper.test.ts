// `guard audit verify` against SQL tampering, for every table the audit chain covers: a committed
// column updated, a row deleted, a row inserted with no entry, and an entry's payload edited (with
// the whole chain rehashed after it, as someone with write access to the database could) are each
// found, naming the table and the row, by the real command; an untouched organisation stays intact.
// Each case tampers with its own organisation, so one `guard audit verify --all` run judges them all.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { createOrganization } from "../../src/accounts/organizations.js";
import { disableOrganization, enableOrganization } from "../../src/accounts/organization-status.js";
import { ensurePrincipal } from "../../src/accounts/principals.js";
import { entryHash, GENESIS_HASH } from "../../src/audit/chain.js";
import { linkQueuedOf } from "../../src/audit/sequencer.js";
import { COVERED_TABLES, VERIFIED_ENTRY_TYPES, type AuditVerification } from "../../src/audit/verify.js";
import { loadConfig, type Config } from "../../src/config.js";
import { giveConsent, withdrawConsent } from "../../src/consent/consents.js";
import { recordParentalVerification } from "../../src/consent/parental-verification.js";
import type { Database } from "../../src/db/database.js";
import { parseNoticeDraft, publishNotice } from "../../src/notices/notices.js";
import { createDsr, updateDsrStatus } from "../../src/rights/dsr.js";
import { createGrievance, respondToGrievance } from "../../src/rights/grievances.js";
import type { Actor } from "../../src/rights/history.js";
import { revokeNomination, upsertNomination } from "../../src/rights/nominations.js";
import { setResponsePeriods } from "../../src/rights/settings.js";
import { canonicalJson } from "../../src/lib/canonical-json.js";
import { canonicalizeCaptureArtifact, signCaptureArtifact } from "@guard/contract";
import { rejectCapture, releaseCapture, syncCaptures } from "../../src/offline/captures/captures.js";
import { SecretBox } from "../../src/lib/secret-box.js";
import { enrolDevice, revokeDevice } from "../../src/offline/devices/devices.js";
import { answerLink, createLink, disableLink, linkDeps } from "../../src/offline/links/links.js";
import { recordIvrArtifact, resolveIvrNotice, type IvrSubmission } from "../../src/offline/ivr/artifacts.js";
import {
  answerPosRequest,
  closePosRequest,
  createPosRequest,
  posDeps,
  POS_REQUEST_TTL_MS,
} from "../../src/offline/pos/requests.js";
import { findPublishedNotice } from "../../src/notices/notices.js";
import { resolveConsentNotice } from "../../src/consent/consents.js";
import { updateOrganizationSettings } from "../../src/settings/organization-settings.js";
import { createActivity, setActivityArchived, updateActivity } from "../../src/ropa/activities.js";
import { createCliEnvironment, type CliEnvironment } from "../support/cli-helpers.js";
import { seedRetention, type RetentionSeed } from "../retention/tamper-seed.js";
import { seedBreaches, type BreachSeed } from "../breaches/tamper-seed.js";

const REPO = fileURLToPath(new URL("../../..", import.meta.url));
/** Lines grep prints for `pattern` over server/src's TypeScript. */
function grepSource(flags: string, pattern: string): string[] {
  return execFileSync("grep", [flags, pattern, "server/src", "--include=*.ts"], {
    encoding: "utf8",
    cwd: REPO,
  })
    .split("\n")
    .filter((line) => line !== "");
}

const STAFF: Actor = { kind: "staff", id: "stf_tamper" };

/** The records one organisation's history made, by role (the retention register's: retention/). */
interface Seeded extends RetentionSeed, BreachSeed {
  organizationId: string;
  slug: string;
  principalId: string;
  /** A second principal of the organisation, with no records of its own. */
  otherPrincipalId: string;
  consentKept: string;
  consentWithdrawn: string;
  dsrRejected: string;
  dsrPending: string;
  grievance: string;
  nominationRevoked: string;
  nominationActive: string;
  verificationId: string;
  /** Enrolled devices (offline/devices): one active, one revoked. */
  deviceActive: string;
  deviceRevoked: string;
  /** QR consent links (offline/links): one active with two answers, one disabled. */
  linkActive: string;
  linkDisabled: string;
  linkAccepted: string;
  linkDeclined: string;
  /** Signed offline captures (offline/captures): one verified, one released and one rejected by staff. */
  captureVerified: string;
  captureReleased: string;
  captureRejected: string;
  /** IVR call artefacts (offline/ivr): one acceptance, one refusal. */
  ivrAccepted: string;
  ivrRefused: string;
  /** Point-of-sale consent requests (offline/pos), one in each state. */
  posPending: string;
  posConfirmed: string;
  posDeclined: string;
  posExpired: string;
  posClosed: string;
  /** Processing activities (ropa): one created then changed, one archived. */
  activityChanged: string;
  activityArchived: string;
}

/** One organisation with a bit of every kind of evidence, made through the rule modules. */
async function seed(db: Database, config: Config, slug: string, start: number): Promise<Seeded> {
  let now = start;
  const tick = () => (now += 1000);
  const org = await createOrganization(db, { slug, name: slug }, tick());
  const organizationId = org.organizationId;
  const notice = await publishNotice(
    db,
    organizationId,
    parseNoticeDraft({
      itemized: [
        { purpose: "Account", personalDataDescription: "Email." },
        { purpose: "Marketing", personalDataDescription: "Email." },
      ],
      content: { en: { title: "Notice", body: "Body" } },
    }),
    tick(),
  );
  const { principalId } = await ensurePrincipal(db, { organizationId, externalId: "u1" }, tick());
  const principal = { organizationId, principalId, externalId: "u1" };
  const other = await ensurePrincipal(db, { organizationId, externalId: "u2" }, tick());
  const consentIds: string[] = [];
  for (const purpose of ["Account", "Marketing"]) {
    const consent = await db.transaction((tx) =>
      giveConsent(
        tx,
        { auditKeys: config.auditKeys },
        {
          organizationId,
          holder: { kind: "principal", principalId, externalId: "u1" },
          notice: { noticeId: notice.noticeId, version: notice.version },
          purpose,
          dataTypes: ["email"],
          source: "direct",
        },
        tick(),
      ),
    );
    consentIds.push(consent.consentId);
  }
  await db.transaction((tx) => withdrawConsent(tx, { organizationId, consentId: consentIds[1]! }, tick()));
  await db.transaction((tx) =>
    recordParentalVerification(
      tx,
      {
        subject: principal,
        provider: "signed-test-token",
        token: `token-${slug}`,
        parentReference: "parent",
      },
      tick(),
    ),
  );
  await db.transaction((tx) =>
    setResponsePeriods(
      tx,
      { organizationId, dsrResponseDays: 45, grievanceResponseDays: 60, actor: STAFF },
      tick(),
    ),
  );
  await db.transaction((tx) =>
    updateOrganizationSettings(
      tx,
      { organizationId, patch: { blockTrackingForChildren: false }, actor: { kind: "staff", id: STAFF.id } },
      tick(),
    ),
  );
  const file = () =>
    db.transaction((tx) =>
      createDsr(
        tx,
        { organizationId, principalId, type: "correction", details: "fix my name", actor: STAFF },
        tick(),
      ),
    );
  const dsrRejected = (await file()).requestId;
  const dsrPending = (await file()).requestId;
  const erasure = { pseudonymKey: config.secretsKey };
  for (const status of ["in_progress", "rejected"] as const) {
    await updateDsrStatus(
      db,
      { organizationId, requestId: dsrRejected, status, reason: "not verifiable", actor: STAFF },
      erasure,
      tick(),
    );
  }
  const grievance = (
    await db.transaction((tx) =>
      createGrievance(
        tx,
        { organizationId, principalId, subject: "Spam", description: "Too much", actor: STAFF },
        tick(),
      ),
    )
  ).grievanceId;
  await respondToGrievance(
    db,
    { organizationId, grievanceId: grievance, status: "resolved", response: "Stopped", actor: STAFF },
    tick(),
  );
  const nominee = { nomineeName: "Asha", nomineeContact: "asha@example.com" };
  const nominationRevoked = (await upsertNomination(db, principal, nominee, STAFF, tick())).nominationId;
  await upsertNomination(db, principal, { ...nominee, nomineeName: "Asha K" }, STAFF, tick());
  await revokeNomination(db, principal, STAFF, tick());
  const nominationActive = (await upsertNomination(db, principal, nominee, STAFF, tick())).nominationId;
  const [verification] = await db.query<{ verification_id: string }>(
    "SELECT verification_id FROM parental_verifications WHERE organization_id = $1",
    [organizationId],
  );
  const enrol = (label: string) =>
    db.transaction((tx) =>
      enrolDevice(
        tx,
        {
          organizationId,
          label,
          channel: "agent_app",
          publicKeySpki: generateKeyPairSync("ec", { namedCurve: "prime256v1" })
            .publicKey.export({ type: "spki", format: "der" })
            .toString("base64"),
          actor: { kind: "staff", id: "stf_tamper" },
        },
        tick(),
      ),
    );
  const deviceActive = (await enrol("Ward tablet")).deviceId;
  const deviceRevoked = (await enrol("Lost tablet")).deviceId;
  await db.transaction((tx) =>
    revokeDevice(
      tx,
      { organizationId, deviceId: deviceRevoked, reason: "Lost", actor: { kind: "staff", id: "stf_tamper" } },
      tick(),
    ),
  );
  const mintLink = (label: string) =>
    db.transaction((tx) =>
      createLink(
        tx,
        {
          organizationId,
          noticeId: notice.noticeId,
          purpose: "Marketing",
          dataTypes: ["phone"],
          label,
          actor: { kind: "service", id: "key_tamper" },
        },
        tick(),
      ),
    );
  const linkActive = (await mintLink("Counter 1")).link;
  const linkDisabled = (await mintLink("Counter 2")).link.linkId;
  await db.transaction((tx) =>
    disableLink(
      tx,
      { organizationId, linkId: linkDisabled, actor: { kind: "staff", id: "stf_tamper" } },
      tick(),
    ),
  );
  const answer = (decision: "accepted" | "declined", nonce: string) =>
    answerLink(
      db,
      linkDeps(config),
      { link: linkActive, nonce, decision, noticeVersion: notice.version, locale: "en" },
      tick(),
    );
  const linkAccepted = (await answer("accepted", "A".repeat(32))).response.responseId;
  const linkDeclined = (await answer("declined", "D".repeat(32))).response.responseId;
  const captureKeys = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const captureDevice = await db.transaction((tx) =>
    enrolDevice(
      tx,
      {
        organizationId,
        label: "Capture tablet",
        channel: "agent_app",
        publicKeySpki: captureKeys.publicKey.export({ type: "spki", format: "der" }).toString("base64"),
        actor: { kind: "staff", id: "stf_tamper" },
      },
      tick(),
    ),
  );
  const captureDeps = {
    auditKeys: config.auditKeys,
    secretsKey: config.secretsKey,
    box: new SecretBox(config.secretsKey),
  };
  const signedCapture = (clientSessionId: string, capturedAtClient: number) => {
    const session = {
      clientSessionId,
      deviceId: captureDevice.deviceId,
      noticeId: notice.noticeId,
      noticeVersion: notice.version,
      noticeLocale: "en",
      channel: "agent_app" as const,
      capturedAtClient,
      dataTypes: ["phone"],
      purposeGrants: [
        {
          purposeKey: "Marketing",
          purposeLabel: "Offers",
          category: "non_essential" as const,
          status: "opt_in" as const,
        },
        {
          purposeKey: "Account",
          purposeLabel: "Account",
          category: "essential" as const,
          status: "opt_out" as const,
        },
      ],
      principalHandle: { kind: "phone_hash" as const, value: "+91 98765 43210" },
    };
    const canonical = canonicalizeCaptureArtifact({ ...session, organizationId });
    return { ...session, deviceSignature: signCaptureArtifact(captureKeys.privateKey, canonical) };
  };
  const receivedAt = tick();
  // The device clock of the last two is 1970: quarantined as clock_skew, then reviewed.
  await syncCaptures(
    db,
    captureDeps,
    organizationId,
    [
      signedCapture("capture-verified", receivedAt),
      signedCapture("capture-released", 0),
      signedCapture("capture-rejected", 0),
    ],
    receivedAt,
  );
  const captureIds = new Map(
    (
      await db.query<{ client_session_id: string; session_id: string }>(
        "SELECT client_session_id, session_id FROM offline_capture_sessions WHERE organization_id = $1",
        [organizationId],
      )
    ).map((row) => [row.client_session_id, row.session_id]),
  );
  const reviewer = { organizationId, reviewerId: "stf_tamper" };
  await db.transaction((tx) =>
    releaseCapture(
      tx,
      captureDeps,
      reviewer,
      { sessionId: captureIds.get("capture-released")!, note: "Clock was wrong" },
      tick(),
    ),
  );
  await db.transaction((tx) =>
    rejectCapture(tx, reviewer, { sessionId: captureIds.get("capture-rejected")!, note: "Not ours" }, tick()),
  );
  // Two IVR calls reported by a telephony partner: "1" agrees, "2" refuses (no consent).
  const ivrDeps = { auditKeys: config.auditKeys, box: new SecretBox(config.secretsKey) };
  const reportCall = async (partnerCallId: string, dtmfSequence: string, transcript?: string) => {
    const submission: IvrSubmission = {
      noticeId: notice.noticeId,
      partnerCallId,
      audioRecordingUri: `https://recordings.partner.example/${partnerCallId}.wav`,
      ...(transcript === undefined ? {} : { transcript }),
      locale: "en-IN",
      dtmfSequence,
      callerNumberHash: `sha256:${partnerCallId}`,
      capturedAt: now - 60_000,
      partnerSignature: "partner-sig-v1:abc123==",
      purpose: "Marketing",
      dataTypes: ["phone"],
    };
    const ivrNotice = await resolveIvrNotice(db, organizationId, submission);
    return (
      await db.transaction((tx) =>
        recordIvrArtifact(
          tx,
          ivrDeps,
          { organizationId, apiKeyId: "key_tamper", notice: ivrNotice, submission },
          tick(),
        ),
      )
    ).artifactId;
  };
  const ivrAccepted = await reportCall("call-1", "1#", "Press 1 to agree. [1]");
  const ivrRefused = await reportCall("call-2", "2");
  // Point-of-sale requests: pending, confirmed and declined by the customer, then (72 hours later)
  // one expired on its page and one expired and closed by staff.
  const pos = posDeps(config);
  const posNotice = await resolveConsentNotice(db, organizationId, notice.noticeId, "Marketing");
  const ask = () =>
    db.transaction((tx) =>
      createPosRequest(
        tx,
        pos,
        {
          organizationId,
          apiKeyId: "key_tamper",
          notice: posNotice,
          dataTypes: ["phone"],
          phone: "+91 98765 43210",
        },
        tick(),
      ),
    );
  const answerPos = (token: string, answer: "confirm" | "decline") =>
    db.transaction((tx) =>
      answerPosRequest(
        tx,
        pos,
        {
          token,
          answer,
          shownVersion: notice.version,
          published: (r) => findPublishedNotice(tx, r.noticeId),
        },
        tick(),
      ),
    );
  const posPending = (await ask()).request.requestId;
  const confirmedAsk = await ask();
  assert.equal((await answerPos(confirmedAsk.token, "confirm")).outcome, "confirmed");
  const declinedAsk = await ask();
  assert.equal((await answerPos(declinedAsk.token, "decline")).outcome, "declined");
  const expiredAsk = await ask();
  const closedAsk = await ask();
  now += POS_REQUEST_TTL_MS;
  assert.equal((await answerPos(expiredAsk.token, "confirm")).outcome, "expired");
  await db.transaction((tx) =>
    closePosRequest(
      tx,
      {
        organizationId,
        requestId: closedAsk.request.requestId,
        closedBy: "stf_tamper",
        note: "Customer left",
      },
      tick(),
    ),
  );
  const ropaActor = { kind: "system" as const, id: "cli:tamper" };
  const activity = (name: string) =>
    db.transaction((tx) =>
      createActivity(
        tx,
        {
          organizationId,
          body: {
            name,
            purpose: "Delivery",
            dataCategories: ["address"],
            legalBasis: "consent",
            storageLocation: "Mumbai",
            crossesBorder: true,
            destinationCountries: ["SG"],
          },
          actor: ropaActor,
        },
        tick(),
      ),
    );
  const activityChanged = (await activity("Shipping")).activityId;
  await db.transaction((tx) =>
    updateActivity(
      tx,
      {
        organizationId,
        activityId: activityChanged,
        patch: { legalBasis: "legal_obligation" },
        actor: ropaActor,
      },
      tick(),
    ),
  );
  const activityArchived = (await activity("Old shipping")).activityId;
  await db.transaction((tx) =>
    setActivityArchived(
      tx,
      { organizationId, activityId: activityArchived, actor: ropaActor, archived: true },
      tick(),
    ),
  );
  const retention = await seedRetention(
    db,
    { organizationId, principalId, externalId: "u1", purpose: "Account" },
    tick,
  );
  const breaches = await seedBreaches(db, { organizationId, principalId, externalId: "u1" }, tick);
  // The operator disabled it, enabled it and disabled it again (accounts/organization-status.ts).
  await db.transaction((tx) =>
    disableOrganization(tx, { organizationId, reason: "invoice unpaid", by: "operator" }, tick()),
  );
  await db.transaction((tx) => enableOrganization(tx, { organizationId, by: "cli:ops" }, tick()));
  await db.transaction((tx) =>
    disableOrganization(tx, { organizationId, reason: "contract ended", by: "operator:ana" }, tick()),
  );
  // What the sequencer would do next: the history is on the chain before any case tampers with it.
  await linkQueuedOf(db, organizationId, tick());
  return {
    ...retention,
    ...breaches,
    organizationId,
    slug,
    principalId,
    otherPrincipalId: other.principalId,
    consentKept: consentIds[0]!,
    consentWithdrawn: consentIds[1]!,
    dsrRejected,
    dsrPending,
    grievance,
    nominationRevoked,
    nominationActive,
    verificationId: verification!.verification_id,
    deviceActive,
    deviceRevoked,
    linkActive: linkActive.linkId,
    linkDisabled,
    linkAccepted,
    linkDeclined,
    captureVerified: captureIds.get("capture-verified")!,
    captureReleased: captureIds.get("capture-released")!,
    captureRejected: captureIds.get("capture-rejected")!,
    ivrAccepted,
    ivrRefused,
    posPending,
    posConfirmed: confirmedAsk.request.requestId,
    posDeclined: declinedAsk.request.requestId,
    posExpired: expiredAsk.request.requestId,
    posClosed: closedAsk.request.requestId,
    activityChanged,
    activityArchived,
  };
}

/**
 * Edits the payload of the entries `edit` returns a new payload for and rehashes the chain from
 * there to the head, so every link verifies again: only the records can give the edit away.
 * `edits` is how many entries the rewrite must change ("some": at least one).
 */
async function rewriteChain(
  db: Database,
  organizationId: string,
  edit: (entry: {
    entryType: string;
    subjectId: string;
    payload: Record<string, unknown>;
  }) => Record<string, unknown> | undefined,
  edits: number | "some" = 1,
): Promise<void> {
  const entries = await db.query<{
    seq: number;
    entry_type: string;
    subject_id: string;
    payload: string;
    created_at: number;
  }>(
    "SELECT seq, entry_type, subject_id, payload, created_at FROM audit_entries WHERE organization_id = $1 ORDER BY seq",
    [organizationId],
  );
  let prev = GENESIS_HASH;
  let edited = 0;
  for (const e of entries) {
    const changed = edit({
      entryType: e.entry_type,
      subjectId: e.subject_id,
      payload: JSON.parse(e.payload) as Record<string, unknown>,
    });
    if (changed) edited += 1;
    // Canonical JSON, as the appender writes it.
    const payload = changed ? canonicalJson(changed) : e.payload;
    const hash = entryHash({
      prevHash: prev,
      seq: e.seq,
      organizationId,
      entryType: e.entry_type,
      subjectId: e.subject_id,
      createdAt: e.created_at,
      payload,
    });
    await db.query(
      "UPDATE audit_entries SET payload = $3, prev_hash = $4, entry_hash = $5 WHERE organization_id = $1 AND seq = $2",
      [organizationId, e.seq, payload, prev, hash],
    );
    prev = hash;
  }
  if (edits === "some") assert.ok(edited > 0, "the rewrite edits some entries");
  else assert.equal(edited, edits, `the rewrite edits exactly ${edits} entries`);
  await db.query("UPDATE audit_chain_heads SET last_hash = $2 WHERE organization_id = $1", [
    organizationId,
    prev,
  ]);
}

/**
 * Deletes the first entry `pick` chooses and renumbers and rehashes the chain after it, head
 * included, so every link verifies again: only the records can give the deletion away.
 */
async function dropEntry(
  db: Database,
  organizationId: string,
  pick: (entry: { entryType: string; subjectId: string }) => boolean,
): Promise<void> {
  const entries = await db.query<{
    seq: number;
    entry_type: string;
    subject_id: string;
    payload: string;
    created_at: number;
  }>(
    "SELECT seq, entry_type, subject_id, payload, created_at FROM audit_entries WHERE organization_id = $1 ORDER BY seq",
    [organizationId],
  );
  const target = entries.find((e) => pick({ entryType: e.entry_type, subjectId: e.subject_id }));
  assert.ok(target, "the entry to drop exists");
  await db.query("DELETE FROM audit_entries WHERE organization_id = $1 AND seq = $2", [
    organizationId,
    target.seq,
  ]);
  let prev = GENESIS_HASH;
  let seq = 0;
  for (const e of entries) {
    if (e === target) continue;
    seq += 1;
    const hash = entryHash({
      prevHash: prev,
      seq,
      organizationId,
      entryType: e.entry_type,
      subjectId: e.subject_id,
      createdAt: e.created_at,
      payload: e.payload,
    });
    // Ascending order: the position one below is always free by now.
    await db.query(
      "UPDATE audit_entries SET seq = $3, prev_hash = $4, entry_hash = $5 WHERE organization_id = $1 AND seq = $2",
      [organizationId, e.seq, seq, prev, hash],
    );
    prev = hash;
  }
  await db.query("UPDATE audit_chain_heads SET last_seq = $2, last_hash = $3 WHERE organization_id = $1", [
    organizationId,
    seq,
    prev,
  ]);
}

/** Appends a forged entry after the head, hashed as the sequencer would, and moves the head to it. */
async function forgeEntry(
  db: Database,
  organizationId: string,
  entry: { entryType: string; subjectId: string; payload: Record<string, unknown> },
): Promise<void> {
  const [head] = await db.query<{ last_seq: number; last_hash: string; next_ref: number }>(
    `SELECT last_seq, last_hash, (SELECT max(entry_ref) + 1 FROM audit_entries WHERE organization_id = $1) AS next_ref
       FROM audit_chain_heads WHERE organization_id = $1`,
    [organizationId],
  );
  const seq = head!.last_seq + 1;
  const createdAt = Date.now();
  const payload = canonicalJson(entry.payload);
  const hash = entryHash({ prevHash: head!.last_hash, seq, organizationId, ...entry, createdAt, payload });
  await db.query(
    `INSERT INTO audit_entries (organization_id, seq, entry_ref, entry_type, subject_id, payload, prev_hash, entry_hash, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      organizationId,
      seq,
      head!.next_ref,
      entry.entryType,
      entry.subjectId,
      payload,
      head!.last_hash,
      hash,
      createdAt,
    ],
  );
  await db.query("UPDATE audit_chain_heads SET last_seq = $2, last_hash = $3 WHERE organization_id = $1", [
    organizationId,
    seq,
    hash,
  ]);
}

/** The id of the last move of a record (its newest rights_transitions row). */
async function lastMove(db: Database, s: Seeded, subjectId: string): Promise<string> {
  const [row] = await db.query<{ transition_id: string }>(
    "SELECT transition_id FROM rights_transitions WHERE organization_id = $1 AND subject_id = $2 ORDER BY seq DESC LIMIT 1",
    [s.organizationId, subjectId],
  );
  return row!.transition_id;
}

/** Withdraws the kept consent, its entry left queued (no sequencer runs here); the event's id. */
async function withdrawKeptLeavingItQueued(db: Database, s: Seeded): Promise<string> {
  await db.transaction((tx) =>
    withdrawConsent(tx, { organizationId: s.organizationId, consentId: s.consentKept }, Date.now()),
  );
  const [event] = await db.query<{ event_id: string }>(
    "SELECT event_id FROM consent_events WHERE organization_id = $1 AND consent_id = $2 AND event_type = 'withdrawn'",
    [s.organizationId, s.consentKept],
  );
  return event!.event_id;
}

interface TamperCase {
  table: string;
  name: string;
  /** Tampers with the organisation; returns the id verify must name for `table` (undefined: any row). */
  tamper(db: Database, s: Seeded): Promise<string | undefined>;
}

const sql =
  (statement: string, params: (s: Seeded) => unknown[], recordId?: (s: Seeded) => string) =>
  async (db: Database, s: Seeded) => {
    await db.query(statement, params(s));
    return recordId?.(s);
  };

const CASES: TamperCase[] = [
  // --- the chain itself
  {
    table: "audit_entries",
    name: "an entry's payload edited (not rehashed)",
    tamper: sql(
      "UPDATE audit_entries SET payload = replace(payload, '\"rejected\"', '\"completed\"') WHERE organization_id = $1 AND payload LIKE '%\"rejected\"%'",
      (s) => [s.organizationId],
    ),
  },
  {
    table: "audit_entries",
    name: "an entry deleted",
    tamper: sql("DELETE FROM audit_entries WHERE organization_id = $1 AND seq = 5", (s) => [
      s.organizationId,
    ]),
  },
  {
    table: "audit_entries",
    name: "an entry inserted after the head",
    tamper: sql(
      `INSERT INTO audit_entries (organization_id, seq, entry_ref, entry_type, subject_id, payload, prev_hash, entry_hash, created_at)
       SELECT organization_id, last_seq + 1, 999999999, 'dsr.transition', 'dsr_forged', '{}', last_hash, repeat('a', 64), 1
       FROM audit_chain_heads WHERE organization_id = $1`,
      (s) => [s.organizationId],
    ),
  },
  {
    table: "audit_chain_heads",
    name: "the head moved back",
    tamper: sql(
      "UPDATE audit_chain_heads SET last_seq = last_seq - 1 WHERE organization_id = $1",
      (s) => [s.organizationId],
      (s) => s.organizationId,
    ),
  },
  {
    table: "audit_chain_heads",
    name: "the head deleted",
    tamper: sql(
      "DELETE FROM audit_chain_heads WHERE organization_id = $1",
      (s) => [s.organizationId],
      (s) => s.organizationId,
    ),
  },
  // --- purge checkpoints (audit/purge.ts; the purge itself is tested in test/log-retention/)
  {
    table: "audit_chain_checkpoints",
    name: "a checkpoint forged to hide the chain's start (no audit.purged entry)",
    tamper: async (db, s) => {
      const [second] = await db.query<{ entry_hash: string }>(
        "SELECT entry_hash FROM audit_entries WHERE organization_id = $1 AND seq = 2",
        [s.organizationId],
      );
      await db.query(
        `INSERT INTO audit_chain_checkpoints (organization_id, checkpoint_id, through_seq, through_hash,
           from_seq, entries_purged, cutoff, purged_at, entry_seq)
         VALUES ($1, 'ckp_forged', 2, $2, 1, 2, 1, 1, 3)`,
        [s.organizationId, second!.entry_hash],
      );
      await db.query("DELETE FROM audit_entries WHERE organization_id = $1 AND seq <= 2", [s.organizationId]);
      return "ckp_forged";
    },
  },
  // --- consents and their events
  {
    table: "consent_events",
    name: "a committed column updated",
    tamper: sql(
      "UPDATE consent_events SET given_at = given_at + 1 WHERE organization_id = $1 AND consent_id = $2",
      (s) => [s.organizationId, s.consentKept],
    ),
  },
  {
    table: "consent_events",
    name: "the withdrawal event deleted",
    tamper: sql(
      "DELETE FROM consent_events WHERE organization_id = $1 AND consent_id = $2 AND event_type = 'withdrawn'",
      (s) => [s.organizationId, s.consentWithdrawn],
    ),
  },
  {
    table: "consent_events",
    name: "an event inserted with no entry",
    tamper: sql(
      `INSERT INTO consent_events (organization_id, event_id, consent_id, event_type, occurred_at, principal_id,
         anonymous_id, notice_id, notice_version, purpose, data_types, given_at, source, reason, audit_hash,
         audit_key_version, audit_ref)
       SELECT organization_id, 'cev_forged', consent_id, 'withdrawn', occurred_at + 5, principal_id, anonymous_id,
         notice_id, notice_version, purpose, data_types, given_at, source, 'principal_request', audit_hash,
         audit_key_version, 9999
       FROM consent_events WHERE organization_id = $1 AND consent_id = $2`,
      (s) => [s.organizationId, s.consentKept],
      () => "cev_forged",
    ),
  },
  // --- an entry still queued when someone reaches it (the sequencer links it as it finds it)
  {
    table: "consent_events",
    name: "a queued entry's payload edited before it was linked",
    tamper: async (db, s) => {
      const eventId = await withdrawKeptLeavingItQueued(db, s);
      await db.query(
        `UPDATE audit_queue SET payload = replace(payload, '"purpose":"Account"', '"purpose":"Other"')
         WHERE organization_id = $1 AND subject_id = $2`,
        [s.organizationId, s.consentKept],
      );
      return eventId;
    },
  },
  {
    table: "consent_events",
    name: "a queued entry deleted before it was linked",
    tamper: async (db, s) => {
      const eventId = await withdrawKeptLeavingItQueued(db, s);
      await db.query("DELETE FROM audit_queue WHERE organization_id = $1 AND subject_id = $2", [
        s.organizationId,
        s.consentKept,
      ]);
      return eventId;
    },
  },
  {
    table: "consent_events",
    name: "an entry's payload edited, chain rehashed",
    tamper: async (db, s) => {
      await rewriteChain(db, s.organizationId, (e) =>
        e.entryType === "consent.given" && e.subjectId === s.consentKept
          ? { ...e.payload, purpose: "Other" }
          : undefined,
      );
      return undefined;
    },
  },
  {
    table: "consents",
    name: "a committed column updated",
    tamper: sql(
      "UPDATE consents SET purpose = 'Other' WHERE organization_id = $1 AND consent_id = $2",
      (s) => [s.organizationId, s.consentKept],
      (s) => s.consentKept,
    ),
  },
  {
    table: "consents",
    name: "a withdrawal undone",
    tamper: sql(
      "UPDATE consents SET withdrawn_at = NULL, withdrawal_reason = NULL WHERE organization_id = $1 AND consent_id = $2",
      (s) => [s.organizationId, s.consentWithdrawn],
      (s) => s.consentWithdrawn,
    ),
  },
  {
    table: "consents",
    name: "a consent inserted with no entry",
    tamper: sql(
      `INSERT INTO consents (organization_id, consent_id, principal_id, anonymous_id, notice_id, notice_version, purpose,
         data_types, source, given_at, withdrawn_at, withdrawal_reason, audit_hash, audit_key_version)
       SELECT organization_id, 'cns_forged', principal_id, anonymous_id, notice_id, notice_version, 'Forged',
         data_types, source, given_at, NULL, NULL, audit_hash, audit_key_version
       FROM consents WHERE organization_id = $1 AND consent_id = $2`,
      (s) => [s.organizationId, s.consentKept],
      () => "cns_forged",
    ),
  },
  {
    table: "consent_events",
    name: "a consent deleted with its events",
    tamper: async (db, s) => {
      await db.query("DELETE FROM consent_events WHERE organization_id = $1 AND consent_id = $2", [
        s.organizationId,
        s.consentKept,
      ]);
      await db.query("DELETE FROM consents WHERE organization_id = $1 AND consent_id = $2", [
        s.organizationId,
        s.consentKept,
      ]);
      return s.consentKept;
    },
  },
  // --- parental verifications
  {
    table: "parental_verifications",
    name: "a committed column updated",
    tamper: sql(
      "UPDATE parental_verifications SET provider = 'forged' WHERE organization_id = $1",
      (s) => [s.organizationId],
      (s) => s.verificationId,
    ),
  },
  {
    table: "parental_verifications",
    name: "a row deleted",
    tamper: sql(
      "DELETE FROM parental_verifications WHERE organization_id = $1",
      (s) => [s.organizationId],
      (s) => s.verificationId,
    ),
  },
  {
    table: "parental_verifications",
    name: "a row inserted with no entry",
    tamper: sql(
      `INSERT INTO parental_verifications (organization_id, verification_id, principal_id, provider, token_hash,
         parent_reference_hash, verified_at)
       VALUES ($1, 'pvr_forged', $2, 'forged', repeat('b', 64), repeat('c', 64), 1)`,
      (s) => [s.organizationId, s.principalId],
      () => "pvr_forged",
    ),
  },
  {
    table: "parental_verifications",
    name: "an entry's payload edited, chain rehashed",
    tamper: async (db, s) => {
      await rewriteChain(db, s.organizationId, (e) =>
        e.entryType === "parental_verification.recorded"
          ? { ...e.payload, tokenHash: "d".repeat(64) }
          : undefined,
      );
      return s.verificationId;
    },
  },
  // --- rights: moves, requests, grievances, nominations, response periods
  {
    table: "dsr_requests",
    name: "status changed from rejected to completed (issue 22's probe)",
    tamper: sql(
      "UPDATE dsr_requests SET status = 'completed' WHERE organization_id = $1 AND request_id = $2",
      (s) => [s.organizationId, s.dsrRejected],
      (s) => s.dsrRejected,
    ),
  },
  {
    table: "dsr_requests",
    name: "a request moved to another principal of the organisation",
    tamper: sql(
      "UPDATE dsr_requests SET principal_id = $3 WHERE organization_id = $1 AND request_id = $2",
      (s) => [s.organizationId, s.dsrRejected, s.otherPrincipalId],
      (s) => s.dsrRejected,
    ),
  },
  {
    table: "dsr_requests",
    name: "the response period changed (the deadline kept)",
    tamper: sql(
      "UPDATE dsr_requests SET response_period_days = 90 WHERE organization_id = $1 AND request_id = $2",
      (s) => [s.organizationId, s.dsrPending],
      (s) => s.dsrPending,
    ),
  },
  {
    table: "dsr_requests",
    name: "a request deleted",
    tamper: sql(
      "DELETE FROM dsr_requests WHERE organization_id = $1 AND request_id = $2",
      (s) => [s.organizationId, s.dsrPending],
      (s) => s.dsrPending,
    ),
  },
  {
    table: "dsr_requests",
    name: "a request inserted with no entry",
    tamper: sql(
      `INSERT INTO dsr_requests (organization_id, request_id, principal_id, type, status, details, response_period_days,
         created_at, due_at, updated_at)
       VALUES ($1, 'dsr_forged', $2, 'erasure', 'completed', NULL, 30, 1, 2, 1)`,
      (s) => [s.organizationId, s.principalId],
      () => "dsr_forged",
    ),
  },
  {
    table: "dsr_requests",
    name: "an entry's payload edited, chain rehashed",
    tamper: async (db, s) => {
      await rewriteChain(db, s.organizationId, (e) =>
        e.entryType === "dsr.transition" && e.subjectId === s.dsrPending
          ? { ...e.payload, dueAt: 1 }
          : undefined,
      );
      return s.dsrPending;
    },
  },
  {
    table: "rights_transitions",
    name: "a move's status updated",
    tamper: async (db, s) => {
      const id = await lastMove(db, s, s.dsrRejected);
      await db.query(
        "UPDATE rights_transitions SET to_status = 'completed' WHERE organization_id = $1 AND transition_id = $2",
        [s.organizationId, id],
      );
      return id;
    },
  },
  {
    table: "rights_transitions",
    name: "a move deleted (issue 22's probe)",
    tamper: async (db, s) => {
      const id = await lastMove(db, s, s.dsrRejected);
      await db.query("DELETE FROM rights_transitions WHERE organization_id = $1 AND transition_id = $2", [
        s.organizationId,
        id,
      ]);
      return id;
    },
  },
  {
    table: "rights_transitions",
    name: "a move inserted with no entry",
    tamper: sql(
      `INSERT INTO rights_transitions (organization_id, transition_id, subject_kind, subject_id, from_status, to_status,
         actor_kind, actor_id, reason, occurred_at)
       VALUES ($1, 'trn_forged', 'dsr', $2, 'pending', 'in_progress', 'staff', 'stf_x', NULL, 1)`,
      (s) => [s.organizationId, s.dsrPending],
      () => "trn_forged",
    ),
  },
  {
    table: "audit_entries",
    name: "a move's principalId dropped, chain rehashed (the record then moved)",
    tamper: async (db, s) => {
      await rewriteChain(db, s.organizationId, (e) => {
        if (e.entryType !== "grievance.transition" || e.payload.from !== null) return undefined;
        const { principalId: _dropped, ...rest } = e.payload;
        return rest;
      });
      await db.query(
        "UPDATE grievances SET principal_id = $3 WHERE organization_id = $1 AND grievance_id = $2",
        [s.organizationId, s.grievance, s.otherPrincipalId],
      );
      return undefined;
    },
  },
  {
    table: "rights_transitions",
    name: "an entry's payload edited, chain rehashed",
    tamper: async (db, s) => {
      await rewriteChain(db, s.organizationId, (e) =>
        e.entryType === "grievance.transition" && e.payload.from === null
          ? { ...e.payload, actorId: "stf_someone_else" }
          : undefined,
      );
      return undefined;
    },
  },
  {
    table: "grievances",
    name: "a resolution undone",
    tamper: sql(
      "UPDATE grievances SET status = 'in_progress', closed_at = NULL WHERE organization_id = $1 AND grievance_id = $2",
      (s) => [s.organizationId, s.grievance],
      (s) => s.grievance,
    ),
  },
  {
    table: "grievances",
    name: "a grievance moved to another principal of the organisation",
    tamper: sql(
      "UPDATE grievances SET principal_id = $3 WHERE organization_id = $1 AND grievance_id = $2",
      (s) => [s.organizationId, s.grievance, s.otherPrincipalId],
      (s) => s.grievance,
    ),
  },
  {
    table: "grievances",
    name: "the response period changed (the deadline kept)",
    tamper: sql(
      "UPDATE grievances SET response_period_days = 1 WHERE organization_id = $1 AND grievance_id = $2",
      (s) => [s.organizationId, s.grievance],
      (s) => s.grievance,
    ),
  },
  {
    table: "grievances",
    name: "a grievance deleted",
    tamper: sql(
      "DELETE FROM grievances WHERE organization_id = $1 AND grievance_id = $2",
      (s) => [s.organizationId, s.grievance],
      (s) => s.grievance,
    ),
  },
  {
    table: "grievances",
    name: "a grievance inserted with no entry",
    tamper: sql(
      `INSERT INTO grievances (organization_id, grievance_id, principal_id, subject, description, status,
         response_period_days, created_at, due_at, updated_at)
       VALUES ($1, 'grv_forged', $2, 'x', 'y', 'open', 30, 1, 2, 1)`,
      (s) => [s.organizationId, s.principalId],
      () => "grv_forged",
    ),
  },
  {
    table: "grievances",
    name: "an entry's payload edited, chain rehashed",
    tamper: async (db, s) => {
      await rewriteChain(db, s.organizationId, (e) =>
        e.entryType === "grievance.transition" && e.payload.from === null
          ? { ...e.payload, dueAt: 1 }
          : undefined,
      );
      return s.grievance;
    },
  },
  {
    table: "nominations",
    name: "the active nomination revoked in SQL",
    tamper: sql(
      "UPDATE nominations SET status = 'revoked', revoked_at = 1 WHERE organization_id = $1 AND nomination_id = $2",
      (s) => [s.organizationId, s.nominationActive],
      (s) => s.nominationActive,
    ),
  },
  {
    table: "nominations",
    name: "a nomination moved to another principal of the organisation",
    tamper: sql(
      "UPDATE nominations SET principal_id = $3 WHERE organization_id = $1 AND nomination_id = $2",
      (s) => [s.organizationId, s.nominationActive, s.otherPrincipalId],
      (s) => s.nominationActive,
    ),
  },
  {
    table: "nominations",
    name: "a nomination deleted",
    tamper: sql(
      "DELETE FROM nominations WHERE organization_id = $1 AND nomination_id = $2",
      (s) => [s.organizationId, s.nominationRevoked],
      (s) => s.nominationRevoked,
    ),
  },
  {
    table: "nominations",
    name: "a nomination inserted with no entry",
    tamper: sql(
      `INSERT INTO nominations (organization_id, nomination_id, principal_id, nominee_name, nominee_contact, status,
         created_at, updated_at, revoked_at)
       VALUES ($1, 'nom_forged', $2, 'X', 'x@example.com', 'revoked', 1, 1, 1)`,
      (s) => [s.organizationId, s.principalId],
      () => "nom_forged",
    ),
  },
  {
    table: "nominations",
    name: "an entry's payload edited, chain rehashed",
    tamper: async (db, s) => {
      await rewriteChain(db, s.organizationId, (e) =>
        e.entryType === "nomination.transition" &&
        e.subjectId === s.nominationRevoked &&
        e.payload.to === "revoked"
          ? { ...e.payload, to: "active" }
          : undefined,
      );
      return s.nominationRevoked;
    },
  },
  {
    table: "rights_settings",
    name: "a period lengthened in SQL",
    tamper: sql(
      "UPDATE rights_settings SET dsr_response_days = 90 WHERE organization_id = $1",
      (s) => [s.organizationId],
      (s) => s.organizationId,
    ),
  },
  {
    table: "rights_settings",
    name: "the author of the last change replaced",
    tamper: sql(
      "UPDATE rights_settings SET updated_by = 'stf_someone_else' WHERE organization_id = $1",
      (s) => [s.organizationId],
      (s) => s.organizationId,
    ),
  },
  {
    table: "rights_settings",
    name: "the row deleted",
    tamper: sql(
      "DELETE FROM rights_settings WHERE organization_id = $1",
      (s) => [s.organizationId],
      (s) => s.organizationId,
    ),
  },
  {
    table: "rights_settings",
    name: "an entry's payload edited, chain rehashed",
    tamper: async (db, s) => {
      await rewriteChain(db, s.organizationId, (e) =>
        e.entryType === "rights.response_periods_changed"
          ? { ...e.payload, to: { dsrResponseDays: 30, grievanceResponseDays: 60 } }
          : undefined,
      );
      return s.organizationId;
    },
  },
  {
    table: "organizations",
    name: "a setting changed in SQL",
    tamper: sql(
      `UPDATE organizations SET settings = jsonb_set(settings, '{blockTrackingForChildren}', 'true') WHERE organization_id = $1`,
      (s) => [s.organizationId],
      (s) => s.organizationId,
    ),
  },
  {
    table: "organizations",
    name: "the settings document emptied",
    tamper: sql(
      `UPDATE organizations SET settings = '{}'::jsonb WHERE organization_id = $1`,
      (s) => [s.organizationId],
      (s) => s.organizationId,
    ),
  },
  {
    table: "organizations",
    name: "an entry's payload edited, chain rehashed",
    tamper: async (db, s) => {
      await rewriteChain(db, s.organizationId, (e) =>
        e.entryType === "organization.settings_changed"
          ? { ...e.payload, to: { ...(e.payload.to as object), blockTrackingForChildren: true } }
          : undefined,
      );
      return s.organizationId;
    },
  },
  // --- the organisation's disabled state (accounts/organization-status.ts)
  {
    table: "organizations",
    name: "enabled in SQL, its disabling left on the chain",
    tamper: sql(
      "UPDATE organizations SET disabled_at = NULL, disabled_reason = NULL, disabled_by = NULL WHERE organization_id = $1",
      (s) => [s.organizationId],
      (s) => s.organizationId,
    ),
  },
  {
    table: "organizations",
    name: "the disabling's reason changed in SQL",
    tamper: sql(
      "UPDATE organizations SET disabled_reason = 'a test account' WHERE organization_id = $1",
      (s) => [s.organizationId],
      (s) => s.organizationId,
    ),
  },
  {
    table: "organizations",
    name: "the disabling entry's author edited, chain rehashed",
    tamper: async (db, s) => {
      await rewriteChain(db, s.organizationId, (e) =>
        e.entryType === "organization.disabled" && e.payload.by === "operator:ana"
          ? { ...e.payload, by: "operator:someone-else" }
          : undefined,
      );
      return s.organizationId;
    },
  },
  // --- enrolled devices (offline/devices)
  {
    table: "offline_devices",
    name: "another key put in place of the enrolled one",
    tamper: sql(
      `UPDATE offline_devices SET public_key_spki = (SELECT public_key_spki FROM offline_devices d
         WHERE d.organization_id = $1 AND d.device_id = $3)
       WHERE organization_id = $1 AND device_id = $2`,
      (s) => [s.organizationId, s.deviceActive, s.deviceRevoked],
      (s) => s.deviceActive,
    ),
  },
  {
    table: "offline_devices",
    name: "a revocation undone in SQL",
    tamper: sql(
      "UPDATE offline_devices SET revoked_at = NULL, revoked_by = NULL, revocation_reason = NULL WHERE organization_id = $1 AND device_id = $2",
      (s) => [s.organizationId, s.deviceRevoked],
      (s) => s.deviceRevoked,
    ),
  },
  {
    table: "offline_devices",
    name: "an active device marked revoked in SQL",
    tamper: sql(
      "UPDATE offline_devices SET revoked_at = 1, revoked_by = 'stf_forged', revocation_reason = 'x' WHERE organization_id = $1 AND device_id = $2",
      (s) => [s.organizationId, s.deviceActive],
      (s) => s.deviceActive,
    ),
  },
  {
    table: "offline_devices",
    name: "the row deleted",
    tamper: sql(
      "DELETE FROM offline_devices WHERE organization_id = $1 AND device_id = $2",
      (s) => [s.organizationId, s.deviceActive],
      (s) => s.deviceActive,
    ),
  },
  {
    table: "offline_devices",
    name: "a device inserted with no entry",
    tamper: sql(
      `INSERT INTO offline_devices (organization_id, device_id, label, channel, public_key_spki, key_fingerprint, enrolled_at, enrolled_by)
       SELECT organization_id, 'dev_forged0000', label, channel, public_key_spki, md5(key_fingerprint), enrolled_at, enrolled_by
         FROM offline_devices WHERE organization_id = $1 AND device_id = $2`,
      (s) => [s.organizationId, s.deviceActive],
      () => "dev_forged0000",
    ),
  },
  {
    table: "offline_devices",
    name: "an entry's payload edited, chain rehashed",
    tamper: async (db, s) => {
      await rewriteChain(db, s.organizationId, (e) =>
        e.entryType === "offline_device.enrolled" && e.subjectId === s.deviceActive
          ? { ...e.payload, channel: "pos" }
          : undefined,
      );
      return s.deviceActive;
    },
  },
  // --- QR consent links and the answers on their pages (offline/links)
  {
    table: "offline_consent_links",
    name: "the purpose a link asks for changed in SQL",
    tamper: sql(
      "UPDATE offline_consent_links SET purpose = 'Account' WHERE organization_id = $1 AND link_id = $2",
      (s) => [s.organizationId, s.linkActive],
      (s) => s.linkActive,
    ),
  },
  {
    table: "offline_consent_links",
    name: "a disabling undone in SQL",
    tamper: sql(
      "UPDATE offline_consent_links SET disabled_at = NULL, disabled_by = NULL WHERE organization_id = $1 AND link_id = $2",
      (s) => [s.organizationId, s.linkDisabled],
      (s) => s.linkDisabled,
    ),
  },
  {
    table: "offline_consent_links",
    name: "a link inserted with no entry",
    tamper: sql(
      `INSERT INTO offline_consent_links (organization_id, link_id, token_hash, notice_id, purpose, data_types, label, created_at, created_by)
       SELECT organization_id, 'lnk_forged0000', md5(token_hash), notice_id, purpose, data_types, label, created_at, created_by
         FROM offline_consent_links WHERE organization_id = $1 AND link_id = $2`,
      (s) => [s.organizationId, s.linkActive],
      () => "lnk_forged0000",
    ),
  },
  {
    table: "offline_consent_links",
    name: "an entry's payload edited, chain rehashed",
    tamper: async (db, s) => {
      await rewriteChain(db, s.organizationId, (e) =>
        e.entryType === "offline_link.created" && e.subjectId === s.linkActive
          ? { ...e.payload, dataTypes: ["phone", "address"] }
          : undefined,
      );
      return s.linkActive;
    },
  },
  {
    table: "offline_link_responses",
    name: "a refusal turned into an agreement in SQL",
    tamper: sql(
      "UPDATE offline_link_responses SET decision = 'accepted' WHERE organization_id = $1 AND response_id = $2",
      (s) => [s.organizationId, s.linkDeclined],
      (s) => s.linkDeclined,
    ),
  },
  {
    table: "offline_link_responses",
    name: "the notice version shown changed in SQL",
    tamper: sql(
      "UPDATE offline_link_responses SET notice_version = notice_version + 1 WHERE organization_id = $1 AND response_id = $2",
      (s) => [s.organizationId, s.linkAccepted],
      (s) => s.linkAccepted,
    ),
  },
  {
    table: "offline_link_responses",
    name: "the row deleted",
    tamper: sql(
      "DELETE FROM offline_link_responses WHERE organization_id = $1 AND response_id = $2",
      (s) => [s.organizationId, s.linkDeclined],
      (s) => s.linkDeclined,
    ),
  },
  {
    table: "offline_link_responses",
    name: "an answer inserted with no entry",
    tamper: sql(
      `INSERT INTO offline_link_responses (organization_id, response_id, link_id, nonce_hash, notice_id, notice_version, locale, decision, responded_at)
       SELECT organization_id, 'lrs_forged0000', link_id, md5(nonce_hash), notice_id, notice_version, locale, decision, responded_at
         FROM offline_link_responses WHERE organization_id = $1 AND response_id = $2`,
      (s) => [s.organizationId, s.linkDeclined],
      () => "lrs_forged0000",
    ),
  },
  // --- signed offline captures and their staff review (offline/captures)
  {
    table: "offline_capture_sessions",
    name: "a quarantined session marked verified in SQL",
    tamper: sql(
      "UPDATE offline_capture_sessions SET status = 'verified', reason = NULL, review_status = NULL, reviewed_by = NULL, reviewed_at = NULL, review_note = NULL WHERE organization_id = $1 AND session_id = $2",
      (s) => [s.organizationId, s.captureRejected],
      (s) => s.captureRejected,
    ),
  },
  {
    table: "offline_capture_sessions",
    name: "a declined purpose turned into an opt-in in SQL",
    tamper: sql(
      `UPDATE offline_capture_sessions SET purpose_grants = replace(purpose_grants::text, '"opt_out"', '"opt_in"')::jsonb
        WHERE organization_id = $1 AND session_id = $2`,
      (s) => [s.organizationId, s.captureVerified],
      (s) => s.captureVerified,
    ),
  },
  {
    table: "offline_capture_sessions",
    name: "a staff rejection undone in SQL",
    tamper: sql(
      "UPDATE offline_capture_sessions SET review_status = NULL, reviewed_by = NULL, reviewed_at = NULL, review_note = NULL WHERE organization_id = $1 AND session_id = $2",
      (s) => [s.organizationId, s.captureRejected],
      (s) => s.captureRejected,
    ),
  },
  {
    table: "offline_capture_sessions",
    name: "the consents of a release swapped in SQL",
    tamper: sql(
      `UPDATE offline_capture_sessions SET consent_ids = (SELECT consent_ids FROM offline_capture_sessions c
         WHERE c.organization_id = $1 AND c.session_id = $3)
       WHERE organization_id = $1 AND session_id = $2`,
      (s) => [s.organizationId, s.captureReleased, s.captureVerified],
      (s) => s.captureReleased,
    ),
  },
  {
    table: "offline_capture_sessions",
    name: "the row deleted",
    tamper: sql(
      "DELETE FROM offline_capture_sessions WHERE organization_id = $1 AND session_id = $2",
      (s) => [s.organizationId, s.captureVerified],
      (s) => s.captureVerified,
    ),
  },
  {
    table: "offline_capture_sessions",
    name: "a session inserted with no entry",
    tamper: sql(
      `INSERT INTO offline_capture_sessions (organization_id, session_id, client_session_id, device_id, status, reason,
         notice_id, notice_version, notice_locale, channel, captured_at_client, received_at, purpose_grants, data_types,
         principal_handle_kind, principal_handle_value, device_signature, link_id, canonical_sha256, consent_ids)
       SELECT organization_id, 'ocs_forged0000', 'forged', device_id, status, reason, notice_id, notice_version,
         notice_locale, channel, captured_at_client, received_at, purpose_grants, data_types, principal_handle_kind,
         principal_handle_value, device_signature, link_id, canonical_sha256, consent_ids
         FROM offline_capture_sessions WHERE organization_id = $1 AND session_id = $2`,
      (s) => [s.organizationId, s.captureVerified],
      () => "ocs_forged0000",
    ),
  },
  {
    table: "offline_capture_sessions",
    name: "an entry's payload edited, chain rehashed",
    tamper: async (db, s) => {
      await rewriteChain(db, s.organizationId, (e) =>
        e.entryType === "offline_capture.verified" && e.subjectId === s.captureVerified
          ? { ...e.payload, reason: "clock_skew" }
          : undefined,
      );
      return s.captureVerified;
    },
  },
  // --- IVR call artefacts (offline/ivr): immutable, each exactly what its one entry recorded
  {
    table: "ivr_consent_artifacts",
    name: "a refusal's keys changed to an acceptance in SQL",
    tamper: sql(
      "UPDATE ivr_consent_artifacts SET dtmf_sequence = '1' WHERE organization_id = $1 AND artifact_id = $2",
      (s) => [s.organizationId, s.ivrRefused],
      (s) => s.ivrRefused,
    ),
  },
  {
    table: "ivr_consent_artifacts",
    name: "the recording swapped in SQL",
    tamper: sql(
      "UPDATE ivr_consent_artifacts SET audio_recording_uri = 'https://elsewhere.example/x.wav' WHERE organization_id = $1 AND artifact_id = $2",
      (s) => [s.organizationId, s.ivrAccepted],
      (s) => s.ivrAccepted,
    ),
  },
  {
    table: "ivr_consent_artifacts",
    name: "the consent of an acceptance swapped in SQL",
    tamper: sql(
      "UPDATE ivr_consent_artifacts SET consent_id = $3 WHERE organization_id = $1 AND artifact_id = $2",
      (s) => [s.organizationId, s.ivrAccepted, s.consentKept],
      (s) => s.ivrAccepted,
    ),
  },
  {
    table: "ivr_consent_artifacts",
    name: "the row deleted",
    tamper: sql(
      "DELETE FROM ivr_consent_artifacts WHERE organization_id = $1 AND artifact_id = $2",
      (s) => [s.organizationId, s.ivrRefused],
      (s) => s.ivrRefused,
    ),
  },
  {
    table: "ivr_consent_artifacts",
    name: "an artefact inserted with no entry",
    tamper: sql(
      `INSERT INTO ivr_consent_artifacts (organization_id, artifact_id, partner_call_id, notice_id, notice_version, locale,
         purpose, data_types, dtmf_sequence, caller_number_hash, audio_recording_uri, transcript, partner_signature,
         captured_at, received_at, accepted, consent_id, withdrawal_token_sealed, submission_hash, received_by)
       SELECT organization_id, 'ivr_forged0000', 'call-forged', notice_id, notice_version, locale, purpose, data_types,
         dtmf_sequence, caller_number_hash, audio_recording_uri, transcript, partner_signature, captured_at, received_at,
         accepted, consent_id, withdrawal_token_sealed, submission_hash, received_by
         FROM ivr_consent_artifacts WHERE organization_id = $1 AND artifact_id = $2`,
      (s) => [s.organizationId, s.ivrRefused],
      () => "ivr_forged0000",
    ),
  },
  {
    table: "ivr_consent_artifacts",
    name: "an entry's payload edited, chain rehashed",
    tamper: async (db, s) => {
      await rewriteChain(db, s.organizationId, (e) =>
        e.entryType === "offline_ivr.recorded" && e.subjectId === s.ivrRefused
          ? { ...e.payload, accepted: true }
          : undefined,
      );
      return s.ivrRefused;
    },
  },
  {
    table: "ivr_consent_artifacts",
    name: "its entry deleted, chain renumbered and rehashed",
    tamper: async (db, s) => {
      await dropEntry(db, s.organizationId, (e) => e.subjectId === s.ivrAccepted);
      return s.ivrAccepted;
    },
  },
  {
    table: "ivr_consent_artifacts",
    name: "an entry forged for an artefact that does not exist",
    tamper: async (db, s) => {
      await forgeEntry(db, s.organizationId, {
        entryType: "offline_ivr.recorded",
        subjectId: "ivr_forged0001",
        payload: {
          artifactId: "ivr_forged0001",
          partnerCallId: "call-forged",
          accepted: false,
          consentId: null,
          submissionHash: "0".repeat(64),
        },
      });
      return "ivr_forged0001";
    },
  },
  // --- point-of-sale consent requests (offline/pos): each the state its entries give
  {
    table: "pos_consent_requests",
    name: "an expired request reopened in SQL",
    tamper: sql(
      "UPDATE pos_consent_requests SET status = 'pending' WHERE organization_id = $1 AND request_id = $2",
      (s) => [s.organizationId, s.posExpired],
      (s) => s.posExpired,
    ),
  },
  {
    table: "pos_consent_requests",
    name: "a closing undone in SQL",
    tamper: sql(
      "UPDATE pos_consent_requests SET status = 'expired', closed_by = NULL, closed_at = NULL, close_note = NULL WHERE organization_id = $1 AND request_id = $2",
      (s) => [s.organizationId, s.posClosed],
      (s) => s.posClosed,
    ),
  },
  {
    table: "pos_consent_requests",
    name: "the consent of a confirmation swapped in SQL",
    tamper: sql(
      "UPDATE pos_consent_requests SET consent_id = $3 WHERE organization_id = $1 AND request_id = $2",
      (s) => [s.organizationId, s.posConfirmed, s.consentKept],
      (s) => s.posConfirmed,
    ),
  },
  {
    table: "pos_consent_requests",
    name: "a refusal's answer time changed in SQL",
    tamper: sql(
      "UPDATE pos_consent_requests SET answered_at = answered_at + 1 WHERE organization_id = $1 AND request_id = $2",
      (s) => [s.organizationId, s.posDeclined],
      (s) => s.posDeclined,
    ),
  },
  {
    table: "pos_consent_requests",
    name: "a pending request's deadline extended in SQL",
    tamper: sql(
      "UPDATE pos_consent_requests SET expires_at = expires_at + 86400000 WHERE organization_id = $1 AND request_id = $2",
      (s) => [s.organizationId, s.posPending],
      (s) => s.posPending,
    ),
  },
  {
    table: "pos_consent_requests",
    name: "the row deleted",
    tamper: sql(
      "DELETE FROM pos_consent_requests WHERE organization_id = $1 AND request_id = $2",
      (s) => [s.organizationId, s.posConfirmed],
      (s) => s.posConfirmed,
    ),
  },
  {
    table: "pos_consent_requests",
    name: "a request inserted with no entry",
    tamper: sql(
      `INSERT INTO pos_consent_requests (organization_id, request_id, token_hash, notice_id, notice_version, purpose,
         data_types, phone_hash, status, created_at, expires_at, created_by)
       SELECT organization_id, 'pos_forged0000', md5(token_hash), notice_id, notice_version, purpose, data_types,
         phone_hash, status, created_at, expires_at, created_by
         FROM pos_consent_requests WHERE organization_id = $1 AND request_id = $2`,
      (s) => [s.organizationId, s.posPending],
      () => "pos_forged0000",
    ),
  },
  {
    table: "pos_consent_requests",
    name: "an entry's payload edited, chain rehashed",
    tamper: async (db, s) => {
      await rewriteChain(db, s.organizationId, (e) =>
        e.entryType === "offline_pos.created" && e.subjectId === s.posPending
          ? { ...e.payload, dataTypes: ["phone", "address"] }
          : undefined,
      );
      return s.posPending;
    },
  },
  {
    table: "pos_consent_requests",
    name: "the closing entry deleted, chain renumbered and rehashed",
    tamper: async (db, s) => {
      await dropEntry(db, s.organizationId, (e) => e.entryType === "offline_pos.closed");
      return s.posClosed;
    },
  },
  {
    table: "pos_consent_requests",
    name: "a confirmation forged for a pending request",
    tamper: async (db, s) => {
      await forgeEntry(db, s.organizationId, {
        entryType: "offline_pos.confirmed",
        subjectId: s.posPending,
        payload: {
          requestId: s.posPending,
          consentId: s.consentKept,
          requestedNoticeVersion: 1,
          noticeVersion: 1,
        },
      });
      return s.posPending;
    },
  },
  // --- records of processing activities (ropa)
  {
    table: "processing_activities",
    name: "a changed activity's legal basis put back in SQL",
    tamper: sql(
      "UPDATE processing_activities SET legal_basis = 'consent' WHERE organization_id = $1 AND activity_id = $2",
      (s) => [s.organizationId, s.activityChanged],
      (s) => s.activityChanged,
    ),
  },
  {
    table: "processing_activities",
    name: "an archived activity made active in SQL (back on the transfers register)",
    tamper: sql(
      "UPDATE processing_activities SET archived_at = NULL WHERE organization_id = $1 AND activity_id = $2",
      (s) => [s.organizationId, s.activityArchived],
      (s) => s.activityArchived,
    ),
  },
  // --- the retention register (retention)
  {
    table: "retention_policies",
    name: "a policy's window lengthened in SQL",
    tamper: sql(
      "UPDATE retention_policies SET duration_days = 3650 WHERE organization_id = $1 AND policy_id = $2",
      (s) => [s.organizationId, s.retentionPolicy],
      (s) => s.retentionPolicy,
    ),
  },
  {
    table: "retention_legal_holds",
    name: "a hold's release undone in SQL",
    tamper: sql(
      "UPDATE retention_legal_holds SET released_at = NULL, released_by = NULL, release_reason = NULL WHERE organization_id = $1 AND hold_id = $2",
      (s) => [s.organizationId, s.retentionHold],
      (s) => s.retentionHold,
    ),
  },
  {
    table: "retention_scheduled_erasures",
    name: "an erasure marked executed in SQL",
    tamper: sql(
      "UPDATE retention_scheduled_erasures SET status = 'executed', executed_at = due_at, executed_by = 'key_forged' WHERE organization_id = $1 AND scheduled_erasure_id = $2",
      (s) => [s.organizationId, s.retentionErasure],
      (s) => s.retentionErasure,
    ),
  },
  {
    table: "retention_scheduled_erasures",
    name: "the row deleted",
    tamper: sql(
      "DELETE FROM retention_scheduled_erasures WHERE organization_id = $1 AND scheduled_erasure_id = $2",
      (s) => [s.organizationId, s.retentionErasure],
      (s) => s.retentionErasure,
    ),
  },
  // --- the breach register (breaches; more cases in test/breaches/tamper.test.ts)
  {
    table: "breaches",
    name: "a real breach turned into a drill in SQL (off the partner route)",
    tamper: sql(
      "UPDATE breaches SET drill = true WHERE organization_id = $1 AND breach_id = $2",
      (s) => [s.organizationId, s.breach],
      (s) => s.breach,
    ),
  },
  {
    table: "breach_affected_principals",
    name: "an affected principal removed in SQL",
    tamper: sql(
      "DELETE FROM breach_affected_principals WHERE organization_id = $1 AND breach_id = $2 AND principal_id = $3",
      (s) => [s.organizationId, s.breach, s.breachPrincipalId],
      (s) => `${s.breach}/${s.breachPrincipalId}`,
    ),
  },
];

describe("guard audit verify finds SQL tampering in every table the chain covers", () => {
  let cli: CliEnvironment;
  let config: Config;
  const seeded = new Map<string, Seeded>();
  /** Case index -> the row verify must name. */
  const expected = new Map<number, string | undefined>();

  const withDb = <T>(work: (db: Database) => Promise<T>): Promise<T> => cli.withDatabase(work);

  before(async () => {
    cli = await createCliEnvironment({ inProcess: true });
    const migrated = await cli.run(["--json", "migrate"]);
    assert.equal(migrated.code, 0, migrated.stderr);
    config = loadConfig(cli.env);
    await withDb(async (db) => {
      const start = Date.now() - 86_400_000;
      seeded.set("clean", await seed(db, config, "clean", start));
      // A chain written before moves carried principalId: the same history without the field.
      const legacy = await seed(db, config, "legacy", start);
      seeded.set("legacy", legacy);
      await rewriteChain(
        db,
        legacy.organizationId,
        (e) => {
          if (!e.entryType.endsWith(".transition")) return undefined;
          const { principalId: _dropped, ...rest } = e.payload;
          return rest;
        },
        "some",
      );
      for (const [i, c] of CASES.entries()) {
        const s = await seed(db, config, `case-${i}`, start);
        seeded.set(`case-${i}`, s);
        expected.set(i, await c.tamper(db, s));
      }
    });
  });
  after(() => cli.dispose());

  test("every module appending to the chain has its evidence checked", () => {
    // A new writer must come with a checker in audit/evidence/ (else verify reports its entries as
    // unknown) and a tamper case here for each table it commits to; then list it below.
    const writers = grepSource("-rlE", "appendAuditEntr(y|ies)\\(")
      .filter((f) => !f.startsWith("server/src/audit/"))
      .sort();
    assert.deepEqual(writers, [
      "server/src/accounts/organization-status.ts",
      "server/src/breaches/principals.ts",
      "server/src/breaches/register.ts",
      "server/src/consent/events.ts",
      "server/src/consent/parental-verification.ts",
      "server/src/log-retention/partitions.ts",
      "server/src/log-retention/purge.ts",
      "server/src/offline/captures/captures.ts",
      "server/src/offline/devices/devices.ts",
      "server/src/offline/ivr/artifacts.ts",
      "server/src/offline/links/links.ts",
      "server/src/offline/pos/requests.ts",
      "server/src/retention/erasures.ts",
      "server/src/retention/holds.ts",
      "server/src/retention/policies.ts",
      "server/src/rights/history.ts",
      "server/src/rights/settings.ts",
      "server/src/ropa/activities.ts",
      "server/src/settings/organization-settings.ts",
    ]);
    const literalTypes = grepSource("-rhoE", 'entryType: "[a-z_.]+"').map((line) =>
      line.slice('entryType: "'.length, -1),
    );
    for (const type of literalTypes) assert.ok(VERIFIED_ENTRY_TYPES.includes(type), `${type} is verified`);
  });

  test("the cases cover every table verify checks", () => {
    assert.deepEqual(
      [...new Set(CASES.map((c) => c.table))].sort(),
      [...COVERED_TABLES].sort(),
      "a covered table with no tamper case, or a case for a table verify does not claim",
    );
  });

  test("an untouched organisation verifies clean (exit 0)", async () => {
    const res = await cli.run(["--json", "audit", "verify", "--org", "clean"]);
    assert.equal(res.code, 0, res.stderr);
    const report = res.json<AuditVerification>();
    assert.equal(report.intact, true, JSON.stringify(report.problems));
    for (const table of [
      "rights_transitions",
      "dsr_requests",
      "grievances",
      "nominations",
      "parental_verifications",
      "offline_devices",
      "offline_consent_links",
      "offline_link_responses",
      "offline_capture_sessions",
      "ivr_consent_artifacts",
      "pos_consent_requests",
      "processing_activities",
    ]) {
      assert.ok((report.rowsChecked[table] ?? 0) > 0, `${table} rows were checked`);
    }
  });

  test("a chain from before moves named their principal verifies clean (its records are not held to one)", async () => {
    const res = await cli.run(["--json", "audit", "verify", "--org", "legacy"]);
    assert.equal(res.code, 0, res.stderr);
    assert.equal(res.json<AuditVerification>().intact, true);
  });

  test("--all: exit 1, every tampered organisation names its table and row, the untouched one is intact", async () => {
    const res = await cli.run(["--json", "audit", "verify", "--all"]);
    assert.equal(res.code, 1, res.stderr);
    assert.match(res.stderr, /audit chains are broken/);
    const { organizations } = res.json<{ intact: boolean; organizations: AuditVerification[] }>();
    const byId = new Map(organizations.map((r) => [r.organizationId, r]));
    assert.equal(byId.get(seeded.get("clean")!.organizationId)!.intact, true);
    const missed: string[] = [];
    for (const [i, c] of CASES.entries()) {
      const report = byId.get(seeded.get(`case-${i}`)!.organizationId)!;
      const recordId = expected.get(i);
      const named = report.problems.some(
        (p) => p.table === c.table && (recordId === undefined || p.recordId === recordId),
      );
      if (report.intact || !named) {
        missed.push(`${c.table}: ${c.name} -> ${JSON.stringify(report.problems)}`);
      }
    }
    assert.deepEqual(missed, []);
  });

  test("the issue's probe in human output: the table, the row and what differs", async () => {
    const probe = CASES.findIndex((c) => c.name.startsWith("status changed from rejected"));
    const s = seeded.get(`case-${probe}`)!;
    const res = await cli.run(["audit", "verify", "--org", s.slug]);
    assert.equal(res.code, 1);
    assert.ok(
      res.stderr.includes(`dsr_requests ${s.dsrRejected}`) &&
        res.stderr.includes('status is "completed"; the chain gives "rejected"'),
      res.stderr,
    );
    const deleted = CASES.findIndex((c) => c.name.startsWith("a move deleted"));
    const d = seeded.get(`case-${deleted}`)!;
    const res2 = await cli.run(["audit", "verify", "--org", d.slug]);
    assert.equal(res2.code, 1);
    assert.match(
      res2.stderr,
      /rights_transitions trn_\S+ \(seq \d+\): the move recorded in the chain is missing/,
    );
  });
});
