// The rules of QR consent links: minting a link for one purpose of a published notice, the staff list
// and disabling, and a principal's answer on the link's page. A link is a standing invitation, not a
// consent: nothing exists until a principal agrees on the page, and each agreement is its own guest
// consent (holder `link:<responseId>`, source `offline_link`) with its own withdrawal token. Every
// answer, a refusal included, is stored with the notice version and language shown, and is on the
// audit chain with the link's creation and disabling.
import { appendAuditEntry } from "../../audit/chain.js";
import {
  assertAuditSafe,
  giveConsent,
  resolveConsentNotice,
  type ConsentDeps,
} from "../../consent/consents.js";
import type { Database, Queryable } from "../../db/database.js";
import { Failure, notFound, validationError } from "../../lib/failure.js";
import { newId, randomBase62 } from "../../lib/ids.js";
import { keysetPage, pageScope, type Page, type PageRequest } from "../../lib/paging.js";
import { sha256Hex } from "../../lib/secrets.js";
import { SecretBox } from "../../lib/secret-box.js";
import { issueWithdrawalToken } from "../withdrawal/tokens.js";
import {
  countResponses,
  findLinkByTokenHash,
  findLink,
  findResponseByNonce,
  insertLink,
  insertResponse,
  listLinksOfOrganization,
  markLinkDisabled,
  setResponseConsent,
  type LinkDecision,
  type LinkRecord,
  type ResponseRecord,
} from "./store.js";

export const LINK_STATUSES = ["active", "disabled"] as const;
export type LinkStatus = (typeof LINK_STATUSES)[number];

/**
 * Who minted or disabled a link, as stored: `service:<apiKeyId>`, `staff:<staffId>`, or
 * `cli:<OS user>` for `guard offline links disable`.
 */
export interface LinkActor {
  kind: "service" | "staff" | "cli";
  id: string;
}
const actorText = (actor: LinkActor) => `${actor.kind}:${actor.id}`;

const TOKEN_PREFIX = "olk_";
/** 26 base62 characters (about 155 bits): unguessable, and short enough for a dense-free QR code. */
const TOKEN_LENGTH = 26;
export const isLinkTokenShaped = (token: string): boolean => /^olk_[0-9A-Za-z]{26}$/.test(token);

/** The single-use nonce a rendered page posts back: 32 base62 characters. */
export const newRedemptionNonce = (): string => randomBase62(32);
export const isNonceShaped = (nonce: string): boolean => /^[0-9A-Za-z]{32}$/.test(nonce);

export const MAX_LABEL_LENGTH = 200;

export interface CreateLinkInput {
  organizationId: string;
  noticeId: string;
  purpose: string;
  dataTypes: string[];
  label?: string | undefined;
  actor: LinkActor;
}

/**
 * Checks what a link will ask for before the write: the fields are audit-safe (they go into every
 * consent the link gives), the label is not blank, and the notice is the organisation's (404),
 * published (NOTICE_NOT_PUBLISHED) and itemises the purpose (400 naming `purpose`).
 */
export async function checkNewLink(db: Queryable, input: CreateLinkInput): Promise<void> {
  assertAuditSafe(input);
  if (input.label !== undefined && input.label.trim() === "")
    throw validationError("label", "label must not be only whitespace");
  await resolveConsentNotice(db, input.organizationId, input.noticeId, input.purpose);
}

/** Mints a link in `tx` with an `offline_link.created` chain entry; the token is returned once. */
export async function createLink(
  tx: Queryable,
  input: CreateLinkInput,
  now: number,
): Promise<{ link: LinkRecord; token: string }> {
  const token = `${TOKEN_PREFIX}${randomBase62(TOKEN_LENGTH)}`;
  const tokenHash = sha256Hex(token);
  const link = await insertLink(tx, {
    organizationId: input.organizationId,
    linkId: newId("lnk"),
    tokenHash,
    noticeId: input.noticeId,
    purpose: input.purpose,
    dataTypes: input.dataTypes,
    label: input.label ?? null,
    createdAt: now,
    createdBy: actorText(input.actor),
  });
  await appendAuditEntry(
    tx,
    {
      organizationId: link.organizationId,
      entryType: "offline_link.created",
      subjectId: link.linkId,
      // The token's hash is committed too: a hash swapped in SQL would point a printed QR code at
      // another link. (A hash of a 155-bit random token reveals nothing.)
      payload: {
        linkId: link.linkId,
        tokenHash,
        noticeId: link.noticeId,
        purpose: link.purpose,
        dataTypes: link.dataTypes,
        label: link.label,
        actor: actorText(input.actor),
      },
    },
    now,
  );
  return { link, token };
}

/** A link as staff see it (`OfflineConsentLinkRecord`). */
export interface LinkWire {
  linkId: string;
  noticeId: string;
  purpose: string;
  dataTypes: string[];
  label: string | null;
  createdAt: number;
  createdBy: string;
  disabledAt: number | null;
  disabledBy: string | null;
  acceptedCount: number;
  declinedCount: number;
}

const linkToWire = (
  link: LinkRecord,
  counts: { accepted: number; declined: number } | undefined,
): LinkWire => ({
  linkId: link.linkId,
  noticeId: link.noticeId,
  purpose: link.purpose,
  dataTypes: link.dataTypes,
  label: link.label,
  createdAt: link.createdAt,
  createdBy: link.createdBy,
  disabledAt: link.disabledAt,
  disabledBy: link.disabledBy,
  acceptedCount: counts?.accepted ?? 0,
  declinedCount: counts?.declined ?? 0,
});

/** One page of the organisation's links, newest first, with their answer counts. */
export async function pageLinks(
  db: Queryable,
  organizationId: string,
  query: PageRequest & { status?: LinkStatus | undefined },
): Promise<Page<LinkWire>> {
  const status = query.status;
  const page = await keysetPage(
    query,
    {
      // The filter is part of the scope: a cursor of the disabled list does not page the active one.
      scope: pageScope("listOfflineConsentLinks", organizationId, status ?? "all"),
      shape: ["number", "string"],
      keyOf: (link: LinkRecord): [number, string] => [link.createdAt, link.linkId],
    },
    (after, limit) => listLinksOfOrganization(db, organizationId, { status, after, limit }),
  );
  const counts = await countResponses(
    db,
    organizationId,
    page.items.map((link) => link.linkId),
  );
  return {
    items: page.items.map((link) => linkToWire(link, counts.get(link.linkId))),
    nextCursor: page.nextCursor,
  };
}

/**
 * Disables a link in `tx`, with an `offline_link.disabled` chain entry. NOT_FOUND for an unknown id
 * or another organisation's link; CONFLICT when it is disabled already.
 */
export async function disableLink(
  tx: Queryable,
  input: { organizationId: string; linkId: string; actor: LinkActor },
  now: number,
): Promise<LinkWire> {
  const disabled = await markLinkDisabled(tx, {
    organizationId: input.organizationId,
    linkId: input.linkId,
    disabledAt: now,
    disabledBy: actorText(input.actor),
  });
  if (!disabled) {
    const existing = await findLink(tx, input.organizationId, input.linkId);
    if (!existing) throw notFound("No such link in this organisation");
    throw new Failure("CONFLICT", `The link was already disabled at ${existing.disabledAt}`);
  }
  await appendAuditEntry(
    tx,
    {
      organizationId: disabled.organizationId,
      entryType: "offline_link.disabled",
      subjectId: disabled.linkId,
      payload: { linkId: disabled.linkId, actor: actorText(input.actor) },
    },
    now,
  );
  const counts = await countResponses(tx, disabled.organizationId, [disabled.linkId]);
  return linkToWire(disabled, counts.get(disabled.linkId));
}

/** The link a page's token names (any organisation); undefined for an unknown or malformed token. */
export async function findLinkByToken(db: Queryable, token: string): Promise<LinkRecord | undefined> {
  if (!isLinkTokenShaped(token)) return undefined;
  return findLinkByTokenHash(db, sha256Hex(token));
}

export interface LinkDeps extends ConsentDeps {
  /** Seals an accepted answer's withdrawal token so a repeated post can show it again. */
  secretBox: SecretBox;
}

export const linkDeps = (config: { auditKeys: ConsentDeps["auditKeys"]; secretsKey: string }): LinkDeps => ({
  auditKeys: config.auditKeys,
  secretBox: new SecretBox(config.secretsKey),
});

/** Associated data of a sealed token: a ciphertext moved onto another answer does not open. */
const sealContext = (response: { organizationId: string; responseId: string }) =>
  `offline_link_response:${response.organizationId}:${response.responseId}`;

/** What a principal's answer resolved to: the stored answer, and the withdrawal token of an acceptance. */
export interface LinkOutcome {
  response: ResponseRecord;
  withdrawalToken: string | null;
  /** False when the nonce had been used: this is the first post's outcome, shown again. */
  recorded: boolean;
}

function outcomeOf(deps: LinkDeps, response: ResponseRecord, recorded: boolean): LinkOutcome {
  const withdrawalToken =
    response.withdrawalTokenSealed === null
      ? null
      : deps.secretBox.open(response.withdrawalTokenSealed, sealContext(response));
  return { response, withdrawalToken, recorded };
}

/** The answer already recorded for this nonce on this link, if any (a double tap, a refresh). */
export async function findAnswer(
  db: Queryable,
  deps: LinkDeps,
  link: LinkRecord,
  nonce: string,
): Promise<LinkOutcome | undefined> {
  const found = await findResponseByNonce(db, link.organizationId, sha256Hex(nonce));
  if (!found) return undefined;
  // A nonce minted on another link's page: not this page's form.
  if (found.linkId !== link.linkId) throw validationError("nonce", "nonce was not issued by this page");
  return outcomeOf(deps, found, false);
}

export interface AnswerInput {
  link: LinkRecord;
  nonce: string;
  decision: LinkDecision;
  /** The notice version shown (the caller checked it is still the published one) and its language. */
  noticeVersion: number;
  locale: string;
}

/**
 * Records a principal's answer in one transaction: the answer row (keyed by the nonce, so a second
 * post of the same form finds the first answer and records nothing), and for an acceptance a guest
 * consent with source `offline_link` and a withdrawal token; then the `offline_link.accepted` or
 * `offline_link.declined` chain entry. The consent's own events and webhooks come from giveConsent.
 */
export async function answerLink(
  db: Database,
  deps: LinkDeps,
  input: AnswerInput,
  now: number,
): Promise<LinkOutcome> {
  const { link } = input;
  const nonceHash = sha256Hex(input.nonce);
  return db.transaction(async (tx) => {
    const inserted = await insertResponse(tx, {
      organizationId: link.organizationId,
      responseId: newId("lrs"),
      linkId: link.linkId,
      nonceHash,
      noticeId: link.noticeId,
      noticeVersion: input.noticeVersion,
      locale: input.locale,
      decision: input.decision,
      respondedAt: now,
    });
    if (!inserted) {
      // A concurrent post of the same form committed first: show its outcome.
      const first = await findResponseByNonce(tx, link.organizationId, nonceHash);
      if (!first || first.linkId !== link.linkId)
        throw validationError("nonce", "nonce was not issued by this page");
      return outcomeOf(deps, first, false);
    }
    let response = inserted;
    let withdrawalToken: string | null = null;
    if (input.decision === "accepted") {
      const consent = await giveConsent(
        tx,
        deps,
        {
          organizationId: link.organizationId,
          holder: { kind: "guest", anonymousId: `link:${inserted.responseId}` },
          notice: { noticeId: link.noticeId, version: input.noticeVersion },
          purpose: link.purpose,
          dataTypes: link.dataTypes,
          source: "offline_link",
        },
        now,
      );
      withdrawalToken = await issueWithdrawalToken(
        tx,
        { organizationId: link.organizationId, consentIds: [consent.consentId] },
        now,
      );
      const withdrawalTokenSealed = deps.secretBox.seal(withdrawalToken, sealContext(inserted));
      await setResponseConsent(tx, {
        organizationId: link.organizationId,
        responseId: inserted.responseId,
        consentId: consent.consentId,
        withdrawalTokenSealed,
      });
      response = { ...inserted, consentId: consent.consentId, withdrawalTokenSealed };
    }
    await appendAuditEntry(
      tx,
      {
        organizationId: link.organizationId,
        entryType: input.decision === "accepted" ? "offline_link.accepted" : "offline_link.declined",
        subjectId: response.responseId,
        payload: {
          responseId: response.responseId,
          linkId: link.linkId,
          nonceHash,
          noticeId: link.noticeId,
          noticeVersion: response.noticeVersion,
          locale: response.locale,
          purpose: link.purpose,
          dataTypes: link.dataTypes,
          consentId: response.consentId,
        },
      },
      now,
    );
    return { response, withdrawalToken, recorded: true };
  });
}
