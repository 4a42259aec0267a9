// The accounts domain's tables: organizations (with the organisation's capability switches and
// settings document), api_keys, staff_users, staff_sessions and principals. Only this module reads
// or writes them. Every statement filters by organization_id, except the lookups that find the
// organisation from a credential or a public name (a key or session hash, a slug).
import type { Queryable } from "../db/database.js";
import { execute, first, qb, rows, sql } from "../db/query.js";
import type { StaffRole } from "../lib/credentials.js";

// ---------------------------------------------------------------------------------------------
// organizations

export interface Organization {
  organizationId: string;
  slug: string;
  name: string;
  createdAt: number;
}

const ORGANIZATION_COLUMNS = ["organization_id", "slug", "name", "created_at"] as const;

const toOrganization = (row: {
  organization_id: string;
  slug: string;
  name: string;
  created_at: number;
}): Organization => ({
  organizationId: row.organization_id,
  slug: row.slug,
  name: row.name,
  createdAt: row.created_at,
});

/** Inserts the organisation; undefined when its slug is taken. */
export async function insertOrganization(
  db: Queryable,
  org: Organization,
): Promise<Organization | undefined> {
  const row = await first(
    db,
    qb
      .insertInto("organizations")
      .values({
        organization_id: org.organizationId,
        slug: org.slug,
        name: org.name,
        created_at: org.createdAt,
      })
      .onConflict((oc) => oc.column("slug").doNothing())
      .returning(ORGANIZATION_COLUMNS),
  );
  return row && toOrganization(row);
}

export async function findOrganizationBySlug(db: Queryable, slug: string): Promise<Organization | undefined> {
  const row = await first(
    db,
    qb.selectFrom("organizations").select(ORGANIZATION_COLUMNS).where("slug", "=", slug),
  );
  return row && toOrganization(row);
}

export async function findOrganizationById(
  db: Queryable,
  organizationId: string,
): Promise<Organization | undefined> {
  const row = await first(
    db,
    qb.selectFrom("organizations").select(ORGANIZATION_COLUMNS).where("organization_id", "=", organizationId),
  );
  return row && toOrganization(row);
}

/**
 * The organisation's settings document (organizations.settings) as stored; undefined when there is
 * no such organisation. Each domain parses the part it owns (consent/settings.ts, gate/settings.ts).
 * `forUpdate` locks the row for a read-modify-write inside a transaction.
 */
export async function readStoredSettings(
  db: Queryable,
  organizationId: string,
  options: { forUpdate?: boolean } = {},
): Promise<unknown> {
  const query = qb
    .selectFrom("organizations")
    .select("settings")
    .where("organization_id", "=", organizationId);
  const row = await first(db, options.forUpdate ? query.forUpdate() : query);
  return row?.settings;
}

/** Replaces the organisation's settings document. */
export async function writeStoredSettings(
  db: Queryable,
  organizationId: string,
  settings: unknown,
): Promise<void> {
  await execute(
    db,
    qb
      .updateTable("organizations")
      .set({ settings: JSON.stringify(settings) })
      .where("organization_id", "=", organizationId),
  );
}

/** Capability switches as stored: `{"<name>": false}` for each one switched off. */
export type CapabilitySwitches = Partial<Record<string, boolean>>;

/** The organisation's capability switches; undefined when there is no such organisation. */
export async function readCapabilitySwitches(
  db: Queryable,
  organizationId: string,
): Promise<CapabilitySwitches | undefined> {
  const row = await first(
    db,
    qb.selectFrom("organizations").select("capabilities").where("organization_id", "=", organizationId),
  );
  return row && (row.capabilities as CapabilitySwitches);
}

/** The organisation a slug names, with its capability switches, in one indexed read. */
export async function capabilitySwitchesBySlug(
  db: Queryable,
  slug: string,
): Promise<{ organizationId: string; switches: CapabilitySwitches } | undefined> {
  const row = await first(
    db,
    qb.selectFrom("organizations").select(["organization_id", "capabilities"]).where("slug", "=", slug),
  );
  return row && { organizationId: row.organization_id, switches: row.capabilities as CapabilitySwitches };
}

/**
 * Drops the `switchOn` names from the stored switches and merges `switchOff` in, in one statement
 * (so concurrent changes to different capabilities both apply). The switches now stored; undefined
 * when there is no such organisation.
 */
export async function updateCapabilitySwitches(
  db: Queryable,
  organizationId: string,
  switchOn: readonly string[],
  switchOff: Record<string, false>,
): Promise<CapabilitySwitches | undefined> {
  const row = await first(
    db,
    qb
      .updateTable("organizations")
      // The names to drop are a PostgreSQL text[] (`jsonb - text[]`), the merged object JSON text.
      .set({
        capabilities: sql<string>`(capabilities - ${switchOn}::text[]) || ${JSON.stringify(switchOff)}::jsonb`,
      })
      .where("organization_id", "=", organizationId)
      .returning("capabilities"),
  );
  return row && (row.capabilities as CapabilitySwitches);
}

// ---------------------------------------------------------------------------------------------
// api_keys

export interface ApiKeySummary {
  apiKeyId: string;
  name: string;
  prefix: string;
  createdAt: number;
  createdBy: string | null;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

export async function insertApiKey(
  db: Queryable,
  key: {
    organizationId: string;
    apiKeyId: string;
    name: string;
    prefix: string;
    keyHash: string;
    createdAt: number;
    createdBy: string | null;
  },
): Promise<void> {
  await execute(
    db,
    qb.insertInto("api_keys").values({
      organization_id: key.organizationId,
      api_key_id: key.apiKeyId,
      name: key.name,
      prefix: key.prefix,
      key_hash: key.keyHash,
      created_at: key.createdAt,
      created_by: key.createdBy,
    }),
  );
}

/** The organisation's keys, newest first. */
export async function listApiKeys(db: Queryable, organizationId: string): Promise<ApiKeySummary[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("api_keys")
      .select(["api_key_id", "name", "prefix", "created_at", "created_by", "last_used_at", "revoked_at"])
      .where("organization_id", "=", organizationId)
      .orderBy("created_at", "desc")
      .orderBy("api_key_id", "desc"),
  );
  return found.map((r) => ({
    apiKeyId: r.api_key_id,
    name: r.name,
    prefix: r.prefix,
    createdAt: r.created_at,
    createdBy: r.created_by,
    lastUsedAt: r.last_used_at,
    revokedAt: r.revoked_at,
  }));
}

/**
 * Revokes the key if it is active; true when this call revoked it. Only an active key is updated,
 * so a second revocation (concurrent ones too: the row lock makes the loser re-check `revoked_at`)
 * answers false.
 */
export async function revokeActiveApiKey(
  db: Queryable,
  organizationId: string,
  apiKeyId: string,
  now: number,
): Promise<boolean> {
  const revoked = await rows(
    db,
    qb
      .updateTable("api_keys")
      .set({ revoked_at: now })
      .where("organization_id", "=", organizationId)
      .where("api_key_id", "=", apiKeyId)
      .where("revoked_at", "is", null)
      .returning("api_key_id"),
  );
  return revoked.length > 0;
}

/** Whether the organisation has the key; `activeOnly` leaves revoked keys out. */
export async function apiKeyExists(
  db: Queryable,
  organizationId: string,
  apiKeyId: string,
  options: { activeOnly?: boolean } = {},
): Promise<boolean> {
  let query = qb
    .selectFrom("api_keys")
    .select("api_key_id")
    .where("organization_id", "=", organizationId)
    .where("api_key_id", "=", apiKeyId);
  if (options.activeOnly) query = query.where("revoked_at", "is", null);
  return (await first(db, query)) !== undefined;
}

/** The active key whose bearer value hashes to `keyHash`. */
export async function activeApiKeyByHash(
  db: Queryable,
  keyHash: string,
): Promise<{ organizationId: string; apiKeyId: string; lastUsedAt: number | null } | undefined> {
  const row = await first(
    db,
    qb
      .selectFrom("api_keys")
      .select(["organization_id", "api_key_id", "last_used_at"])
      .where("key_hash", "=", keyHash)
      .where("revoked_at", "is", null),
  );
  return (
    row && { organizationId: row.organization_id, apiKeyId: row.api_key_id, lastUsedAt: row.last_used_at }
  );
}

export async function setApiKeyLastUsed(
  db: Queryable,
  organizationId: string,
  apiKeyId: string,
  now: number,
): Promise<void> {
  await execute(
    db,
    qb
      .updateTable("api_keys")
      .set({ last_used_at: now })
      .where("organization_id", "=", organizationId)
      .where("api_key_id", "=", apiKeyId),
  );
}

// ---------------------------------------------------------------------------------------------
// staff_users and staff_sessions

/** Inserts the staff user; false when the organisation already has one with this email. */
export async function insertStaffUser(
  db: Queryable,
  user: {
    organizationId: string;
    staffId: string;
    email: string;
    role: StaffRole;
    passwordHash: string;
    createdAt: number;
  },
): Promise<boolean> {
  const inserted = await rows(
    db,
    qb
      .insertInto("staff_users")
      .values({
        organization_id: user.organizationId,
        staff_id: user.staffId,
        email: user.email,
        role: user.role,
        password_hash: user.passwordHash,
        created_at: user.createdAt,
      })
      .onConflict((oc) => oc.columns(["organization_id", "email"]).doNothing())
      .returning("staff_id"),
  );
  return inserted.length > 0;
}

/** The enabled staff user of the organisation with this slug and (normalised) email. */
export async function staffUserForSignIn(
  db: Queryable,
  organizationSlug: string,
  email: string,
): Promise<
  | {
      staffId: string;
      organizationId: string;
      email: string;
      role: StaffRole;
      passwordHash: string;
      createdAt: number;
    }
  | undefined
> {
  const row = await first(
    db,
    qb
      .selectFrom("staff_users as s")
      .innerJoin("organizations as o", "o.organization_id", "s.organization_id")
      .select(["s.staff_id", "s.organization_id", "s.email", "s.role", "s.password_hash", "s.created_at"])
      .where("o.slug", "=", organizationSlug)
      .where("s.email", "=", email)
      .where("s.disabled_at", "is", null),
  );
  return (
    row && {
      staffId: row.staff_id,
      organizationId: row.organization_id,
      email: row.email,
      role: row.role as StaffRole,
      passwordHash: row.password_hash,
      createdAt: row.created_at,
    }
  );
}

export async function insertStaffSession(
  db: Queryable,
  session: {
    organizationId: string;
    sessionId: string;
    staffId: string;
    tokenHash: string;
    csrfToken: string;
    createdAt: number;
    expiresAt: number;
  },
): Promise<void> {
  await execute(
    db,
    qb.insertInto("staff_sessions").values({
      organization_id: session.organizationId,
      session_id: session.sessionId,
      staff_id: session.staffId,
      token_hash: session.tokenHash,
      csrf_token: session.csrfToken,
      created_at: session.createdAt,
      expires_at: session.expiresAt,
    }),
  );
}

export interface LiveStaffSession {
  sessionId: string;
  staffId: string;
  organizationId: string;
  organizationSlug: string;
  email: string;
  role: StaffRole;
  csrfToken: string;
  expiresAt: number;
}

/** The session whose cookie hashes to `tokenHash`, when not ended or expired and its user is enabled. */
export async function liveStaffSession(
  db: Queryable,
  tokenHash: string,
  now: number,
): Promise<LiveStaffSession | undefined> {
  const row = await first(
    db,
    qb
      .selectFrom("staff_sessions as ss")
      .innerJoin("staff_users as su", (join) =>
        join.onRef("su.organization_id", "=", "ss.organization_id").onRef("su.staff_id", "=", "ss.staff_id"),
      )
      .innerJoin("organizations as o", "o.organization_id", "ss.organization_id")
      .select([
        "ss.session_id",
        "ss.staff_id",
        "ss.organization_id",
        "o.slug",
        "su.email",
        "su.role",
        "ss.csrf_token",
        "ss.expires_at",
      ])
      .where("ss.token_hash", "=", tokenHash)
      .where("ss.ended_at", "is", null)
      .where("ss.expires_at", ">", now)
      .where("su.disabled_at", "is", null),
  );
  return (
    row && {
      sessionId: row.session_id,
      staffId: row.staff_id,
      organizationId: row.organization_id,
      organizationSlug: row.slug,
      email: row.email,
      role: row.role as StaffRole,
      csrfToken: row.csrf_token,
      expiresAt: row.expires_at,
    }
  );
}

/** Ends the session if it is still open. */
export async function endStaffSessionRow(
  db: Queryable,
  organizationId: string,
  sessionId: string,
  now: number,
): Promise<void> {
  await execute(
    db,
    qb
      .updateTable("staff_sessions")
      .set({ ended_at: now })
      .where("organization_id", "=", organizationId)
      .where("session_id", "=", sessionId)
      .where("ended_at", "is", null),
  );
}

// ---------------------------------------------------------------------------------------------
// principals

export interface PrincipalRow {
  principalId: string;
  externalId: string;
  email: string | null;
}

/**
 * The principal for (organisation, externalId): inserted with `principalId` on first sight, else
 * the existing one. DO UPDATE (a no-op write) rather than DO NOTHING so RETURNING yields the
 * existing row too; safe under concurrency.
 */
export async function upsertPrincipal(
  db: Queryable,
  input: { organizationId: string; principalId: string; externalId: string; createdAt: number },
): Promise<string> {
  const row = await first(
    db,
    qb
      .insertInto("principals")
      .values({
        organization_id: input.organizationId,
        principal_id: input.principalId,
        external_id: input.externalId,
        created_at: input.createdAt,
      })
      .onConflict((oc) =>
        oc
          .columns(["organization_id", "external_id"])
          .doUpdateSet({ external_id: (eb) => eb.ref("excluded.external_id") }),
      )
      .returning("principal_id"),
  );
  return row!.principal_id;
}

/** The principal identified by (normalised) email or by externalId at the organisation. */
export async function findPrincipalRow(
  db: Queryable,
  organizationId: string,
  by: { email: string } | { externalId: string },
): Promise<PrincipalRow | undefined> {
  const query = qb
    .selectFrom("principals")
    .select(["principal_id", "external_id", "email"])
    .where("organization_id", "=", organizationId);
  const row = await first(
    db,
    "email" in by ? query.where("email", "=", by.email) : query.where("external_id", "=", by.externalId),
  );
  return row && { principalId: row.principal_id, externalId: row.external_id, email: row.email };
}

/** The principal's stored email; undefined when there is no such principal. */
export async function principalEmail(
  db: Queryable,
  organizationId: string,
  principalId: string,
): Promise<{ email: string | null } | undefined> {
  return first(
    db,
    qb
      .selectFrom("principals")
      .select("email")
      .where("organization_id", "=", organizationId)
      .where("principal_id", "=", principalId),
  );
}

/**
 * Gives the (normalised) email to the principal, taking it from any other principal of the
 * organisation that held it. Run it in a transaction: concurrent moves of one address take turns
 * on a transaction-scoped advisory lock named after the organisation and the address.
 */
export async function movePrincipalEmail(
  tx: Queryable,
  input: { organizationId: string; principalId: string; email: string },
): Promise<void> {
  const lockName = `principal-email:${input.organizationId}:${input.email}`;
  await execute(tx, qb.selectNoFrom(sql<string>`pg_advisory_xact_lock(hashtext(${lockName}))`.as("locked")));
  await execute(
    tx,
    qb
      .updateTable("principals")
      .set({ email: null })
      .where("organization_id", "=", input.organizationId)
      .where("email", "=", input.email)
      .where("principal_id", "<>", input.principalId),
  );
  await execute(
    tx,
    qb
      .updateTable("principals")
      .set({ email: input.email })
      .where("organization_id", "=", input.organizationId)
      .where("principal_id", "=", input.principalId),
  );
}

/** A principal with the time it was first seen, and its organisation. */
export interface PrincipalIdentity extends PrincipalRow {
  organizationId: string;
  createdAt: number;
}

/**
 * The principals named by (organisation, principal id) pairs, in one read; unknown pairs are left
 * out. The pairs may span organisations (the rights clock sweep names several at once).
 */
export async function findPrincipalsByIds(
  db: Queryable,
  keys: readonly { organizationId: string; principalId: string }[],
): Promise<PrincipalIdentity[]> {
  if (keys.length === 0) return [];
  const organizationIds = keys.map((k) => k.organizationId);
  const principalIds = keys.map((k) => k.principalId);
  const found = await rows(
    db,
    qb
      .selectFrom("principals")
      .select(["organization_id", "principal_id", "external_id", "email", "created_at"])
      .where(
        sql<boolean>`(organization_id, principal_id) IN (SELECT * FROM unnest(${organizationIds}::text[], ${principalIds}::text[]))`,
      ),
  );
  return found.map((r) => ({
    organizationId: r.organization_id,
    principalId: r.principal_id,
    externalId: r.external_id,
    email: r.email,
    createdAt: r.created_at,
  }));
}

/** The principal, locked until the transaction ends (rights erasure replaces its identifiers). */
export async function lockPrincipal(
  tx: Queryable,
  organizationId: string,
  principalId: string,
): Promise<PrincipalRow | undefined> {
  const row = await first(
    tx,
    qb
      .selectFrom("principals")
      .select(["principal_id", "external_id", "email"])
      .where("organization_id", "=", organizationId)
      .where("principal_id", "=", principalId)
      .forUpdate(),
  );
  return row && { principalId: row.principal_id, externalId: row.external_id, email: row.email };
}

/**
 * Erasure (rights/erasure.ts): replaces the principal's externalId by `pseudonym` and removes its
 * email. A later broker-token call with the old externalId makes a new, unrelated principal.
 */
export async function pseudonymisePrincipal(
  tx: Queryable,
  input: { organizationId: string; principalId: string; pseudonym: string },
): Promise<void> {
  await execute(
    tx,
    qb
      .updateTable("principals")
      .set({ external_id: input.pseudonym, email: null })
      .where("organization_id", "=", input.organizationId)
      .where("principal_id", "=", input.principalId),
  );
}
