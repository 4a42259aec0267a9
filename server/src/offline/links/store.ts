// offline_consent_links and offline_link_responses: QR consent links and the principals' answers on
// their pages. The only code that touches the two tables; links.ts holds the rules.
import type { Queryable } from "../../db/database.js";
import { first, qb, rows } from "../../db/query.js";

export interface LinkRecord {
  organizationId: string;
  linkId: string;
  tokenHash: string;
  noticeId: string;
  purpose: string;
  dataTypes: string[];
  label: string | null;
  createdAt: number;
  createdBy: string;
  disabledAt: number | null;
  disabledBy: string | null;
}

type LinkRow = {
  organization_id: string;
  link_id: string;
  token_hash: string;
  notice_id: string;
  purpose: string;
  data_types: unknown;
  label: string | null;
  created_at: number;
  created_by: string;
  disabled_at: number | null;
  disabled_by: string | null;
};

const linkOf = (row: LinkRow): LinkRecord => ({
  organizationId: row.organization_id,
  linkId: row.link_id,
  tokenHash: row.token_hash,
  noticeId: row.notice_id,
  purpose: row.purpose,
  dataTypes: row.data_types as string[],
  label: row.label,
  createdAt: Number(row.created_at),
  createdBy: row.created_by,
  disabledAt: row.disabled_at === null ? null : Number(row.disabled_at),
  disabledBy: row.disabled_by,
});

const LINK_COLUMNS = [
  "organization_id",
  "link_id",
  "token_hash",
  "notice_id",
  "purpose",
  "data_types",
  "label",
  "created_at",
  "created_by",
  "disabled_at",
  "disabled_by",
] as const;

export async function insertLink(
  tx: Queryable,
  link: Omit<LinkRecord, "disabledAt" | "disabledBy">,
): Promise<LinkRecord> {
  const row = await first(
    tx,
    qb
      .insertInto("offline_consent_links")
      .values({
        organization_id: link.organizationId,
        link_id: link.linkId,
        token_hash: link.tokenHash,
        notice_id: link.noticeId,
        purpose: link.purpose,
        data_types: JSON.stringify(link.dataTypes),
        label: link.label,
        created_at: link.createdAt,
        created_by: link.createdBy,
      })
      .returning(LINK_COLUMNS),
  );
  return linkOf(row!);
}

/** The link a page's token names, by the token's hash (the page knows no organisation). */
export async function findLinkByTokenHash(db: Queryable, tokenHash: string): Promise<LinkRecord | undefined> {
  const row = await first(
    db,
    qb.selectFrom("offline_consent_links").select(LINK_COLUMNS).where("token_hash", "=", tokenHash),
  );
  return row && linkOf(row);
}

export async function findLink(
  db: Queryable,
  organizationId: string,
  linkId: string,
): Promise<LinkRecord | undefined> {
  const row = await first(
    db,
    qb
      .selectFrom("offline_consent_links")
      .select(LINK_COLUMNS)
      .where("organization_id", "=", organizationId)
      .where("link_id", "=", linkId),
  );
  return row && linkOf(row);
}

/**
 * Marks an active link disabled; undefined when the organisation has no such active link (none, or
 * disabled already: the caller tells them apart). One conditional UPDATE, so of two concurrent
 * disables exactly one succeeds.
 */
export async function markLinkDisabled(
  tx: Queryable,
  input: { organizationId: string; linkId: string; disabledAt: number; disabledBy: string },
): Promise<LinkRecord | undefined> {
  const row = await first(
    tx,
    qb
      .updateTable("offline_consent_links")
      .set({ disabled_at: input.disabledAt, disabled_by: input.disabledBy })
      .where("organization_id", "=", input.organizationId)
      .where("link_id", "=", input.linkId)
      .where("disabled_at", "is", null)
      .returning(LINK_COLUMNS),
  );
  return row && linkOf(row);
}

/** A page of the organisation's links, newest first (created_at, then link_id, descending). */
export async function listLinksOfOrganization(
  db: Queryable,
  organizationId: string,
  read: {
    status?: "active" | "disabled" | undefined;
    after?: readonly [number, string] | undefined;
    limit: number;
  },
): Promise<LinkRecord[]> {
  let query = qb
    .selectFrom("offline_consent_links")
    .select(LINK_COLUMNS)
    .where("organization_id", "=", organizationId);
  if (read.status === "active") query = query.where("disabled_at", "is", null);
  if (read.status === "disabled") query = query.where("disabled_at", "is not", null);
  const after = read.after;
  if (after) query = query.where((eb) => eb(eb.refTuple("created_at", "link_id"), "<", eb.tuple(...after)));
  const found = await rows(
    db,
    query.orderBy("created_at", "desc").orderBy("link_id", "desc").limit(read.limit),
  );
  return found.map(linkOf);
}

/** Up to `limit` links with ids after `afterLinkId`, by id (audit verify's keyset scan). */
export async function scanLinks(
  db: Queryable,
  organizationId: string,
  afterLinkId: string,
  limit: number,
): Promise<LinkRecord[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("offline_consent_links")
      .select(LINK_COLUMNS)
      .where("organization_id", "=", organizationId)
      .where("link_id", ">", afterLinkId)
      .orderBy("link_id")
      .limit(limit),
  );
  return found.map(linkOf);
}

/** How many principals agreed and declined on each of these links. */
export async function countResponses(
  db: Queryable,
  organizationId: string,
  linkIds: readonly string[],
): Promise<Map<string, { accepted: number; declined: number }>> {
  const counts = new Map<string, { accepted: number; declined: number }>();
  if (linkIds.length === 0) return counts;
  const found = await rows(
    db,
    qb
      .selectFrom("offline_link_responses")
      .select((eb) => ["link_id", "decision", eb.fn.countAll<string>().as("n")])
      .where("organization_id", "=", organizationId)
      .where("link_id", "in", [...linkIds])
      .groupBy(["link_id", "decision"]),
  );
  for (const row of found) {
    const entry = counts.get(row.link_id) ?? { accepted: 0, declined: 0 };
    if (row.decision === "accepted") entry.accepted = Number(row.n);
    else entry.declined = Number(row.n);
    counts.set(row.link_id, entry);
  }
  return counts;
}

export type LinkDecision = "accepted" | "declined";

export interface ResponseRecord {
  organizationId: string;
  responseId: string;
  linkId: string;
  nonceHash: string;
  noticeId: string;
  noticeVersion: number;
  locale: string;
  decision: LinkDecision;
  consentId: string | null;
  withdrawalTokenSealed: string | null;
  respondedAt: number;
}

type ResponseRow = {
  organization_id: string;
  response_id: string;
  link_id: string;
  nonce_hash: string;
  notice_id: string;
  notice_version: number;
  locale: string;
  decision: string;
  consent_id: string | null;
  withdrawal_token_sealed: string | null;
  responded_at: number;
};

const responseOf = (row: ResponseRow): ResponseRecord => ({
  organizationId: row.organization_id,
  responseId: row.response_id,
  linkId: row.link_id,
  nonceHash: row.nonce_hash,
  noticeId: row.notice_id,
  noticeVersion: Number(row.notice_version),
  locale: row.locale,
  decision: row.decision === "accepted" ? "accepted" : "declined",
  consentId: row.consent_id,
  withdrawalTokenSealed: row.withdrawal_token_sealed,
  respondedAt: Number(row.responded_at),
});

const RESPONSE_COLUMNS = [
  "organization_id",
  "response_id",
  "link_id",
  "nonce_hash",
  "notice_id",
  "notice_version",
  "locale",
  "decision",
  "consent_id",
  "withdrawal_token_sealed",
  "responded_at",
] as const;

/**
 * Inserts an answer; undefined when the organisation already has one with this nonce (the unique
 * index `offline_link_responses_by_nonce`). ON CONFLICT rather than a read first: a concurrent post
 * of the same nonce waits here for the first to commit, then does nothing and reads the first.
 */
export async function insertResponse(
  tx: Queryable,
  response: Omit<ResponseRecord, "consentId" | "withdrawalTokenSealed">,
): Promise<ResponseRecord | undefined> {
  const row = await first(
    tx,
    qb
      .insertInto("offline_link_responses")
      .values({
        organization_id: response.organizationId,
        response_id: response.responseId,
        link_id: response.linkId,
        nonce_hash: response.nonceHash,
        notice_id: response.noticeId,
        notice_version: response.noticeVersion,
        locale: response.locale,
        decision: response.decision,
        responded_at: response.respondedAt,
      })
      .onConflict((oc) => oc.columns(["organization_id", "nonce_hash"]).doNothing())
      .returning(RESPONSE_COLUMNS),
  );
  return row && responseOf(row);
}

export async function findResponseByNonce(
  db: Queryable,
  organizationId: string,
  nonceHash: string,
): Promise<ResponseRecord | undefined> {
  const row = await first(
    db,
    qb
      .selectFrom("offline_link_responses")
      .select(RESPONSE_COLUMNS)
      .where("organization_id", "=", organizationId)
      .where("nonce_hash", "=", nonceHash),
  );
  return row && responseOf(row);
}

/** Records the consent an acceptance gave and its sealed withdrawal token (same transaction). */
export async function setResponseConsent(
  tx: Queryable,
  input: { organizationId: string; responseId: string; consentId: string; withdrawalTokenSealed: string },
): Promise<void> {
  await first(
    tx,
    qb
      .updateTable("offline_link_responses")
      .set({ consent_id: input.consentId, withdrawal_token_sealed: input.withdrawalTokenSealed })
      .where("organization_id", "=", input.organizationId)
      .where("response_id", "=", input.responseId)
      .returning("response_id"),
  );
}

/** The organisation's answers with these ids, by id (audit verify). */
export async function responsesWithIds(
  db: Queryable,
  organizationId: string,
  responseIds: readonly string[],
): Promise<Map<string, ResponseRecord>> {
  if (responseIds.length === 0) return new Map();
  const found = await rows(
    db,
    qb
      .selectFrom("offline_link_responses")
      .select(RESPONSE_COLUMNS)
      .where("organization_id", "=", organizationId)
      .where("response_id", "in", [...responseIds]),
  );
  return new Map(found.map((row) => [row.response_id, responseOf(row)]));
}

/** Up to `limit` answers with ids after `afterResponseId`, by id (audit verify's keyset scan). */
export async function scanResponses(
  db: Queryable,
  organizationId: string,
  afterResponseId: string,
  limit: number,
): Promise<ResponseRecord[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("offline_link_responses")
      .select(RESPONSE_COLUMNS)
      .where("organization_id", "=", organizationId)
      .where("response_id", ">", afterResponseId)
      .orderBy("response_id")
      .limit(limit),
  );
  return found.map(responseOf);
}

/** The organisation's links with these ids, by id (audit verify). */
export async function linksWithIds(
  db: Queryable,
  organizationId: string,
  linkIds: readonly string[],
): Promise<Map<string, LinkRecord>> {
  if (linkIds.length === 0) return new Map();
  const found = await rows(
    db,
    qb
      .selectFrom("offline_consent_links")
      .select(LINK_COLUMNS)
      .where("organization_id", "=", organizationId)
      .where("link_id", "in", [...linkIds]),
  );
  return new Map(found.map((row) => [row.link_id, linkOf(row)]));
}
