// Staff users and their sign-in sessions (stored as the SHA-256 of the cookie value). Sign-in finds
// the organisation by slug and a session by its hash; every other statement filters by
// organization_id.
import type { Queryable } from "../../db/database.js";
import { execute, first, qb, rows } from "../../db/query.js";
import type { StaffRole } from "../../lib/credentials.js";

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

export interface StaffAccountRow {
  staffId: string;
  email: string;
  role: StaffRole;
  createdAt: number;
  disabledAt: number | null;
}

const ACCOUNT_COLUMNS = ["staff_id", "email", "role", "created_at", "disabled_at"] as const;

const toAccount = (row: {
  staff_id: string;
  email: string;
  role: string;
  created_at: number;
  disabled_at: number | null;
}): StaffAccountRow => ({
  staffId: row.staff_id,
  email: row.email,
  role: row.role as StaffRole,
  createdAt: row.created_at,
  disabledAt: row.disabled_at,
});

/** The organisation's staff users, disabled ones included, oldest first. */
export async function listStaffUsers(db: Queryable, organizationId: string): Promise<StaffAccountRow[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("staff_users")
      .select(ACCOUNT_COLUMNS)
      .where("organization_id", "=", organizationId)
      .orderBy("created_at")
      .orderBy("staff_id"),
  );
  return found.map(toAccount);
}

/** One staff user of the organisation; `forUpdate` locks its row until the transaction ends. */
export async function findStaffUser(
  db: Queryable,
  organizationId: string,
  staffId: string,
  options: { forUpdate?: boolean } = {},
): Promise<StaffAccountRow | undefined> {
  let query = qb
    .selectFrom("staff_users")
    .select(ACCOUNT_COLUMNS)
    .where("organization_id", "=", organizationId)
    .where("staff_id", "=", staffId);
  if (options.forUpdate) query = query.forUpdate();
  const row = await first(db, query);
  return row && toAccount(row);
}

/**
 * Locks the organisation's enabled admins (in id order, so concurrent callers queue on the same
 * first row rather than deadlock) and returns their ids. A caller that waited sees the rows as the
 * transaction before it left them: an admin demoted or disabled meanwhile is no longer listed.
 */
export async function lockEnabledAdmins(db: Queryable, organizationId: string): Promise<string[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("staff_users")
      .select("staff_id")
      .where("organization_id", "=", organizationId)
      .where("role", "=", "admin")
      .where("disabled_at", "is", null)
      .orderBy("staff_id")
      .forUpdate(),
  );
  return found.map((r) => r.staff_id);
}

/** Sets the staff user's role and disabled time; the row as it now is. */
export async function setStaffUserAccess(
  db: Queryable,
  organizationId: string,
  staffId: string,
  access: { role: StaffRole; disabledAt: number | null },
): Promise<StaffAccountRow | undefined> {
  const row = await first(
    db,
    qb
      .updateTable("staff_users")
      .set({ role: access.role, disabled_at: access.disabledAt })
      .where("organization_id", "=", organizationId)
      .where("staff_id", "=", staffId)
      .returning(ACCOUNT_COLUMNS),
  );
  return row && toAccount(row);
}

/** Replaces the staff user's password hash; false when the organisation has no such user. */
export async function setStaffUserPasswordHash(
  db: Queryable,
  organizationId: string,
  staffId: string,
  passwordHash: string,
): Promise<boolean> {
  const updated = await rows(
    db,
    qb
      .updateTable("staff_users")
      .set({ password_hash: passwordHash })
      .where("organization_id", "=", organizationId)
      .where("staff_id", "=", staffId)
      .returning("staff_id"),
  );
  return updated.length > 0;
}

/** Ends every open session of the staff user; how many were ended. */
export async function endStaffUserSessions(
  db: Queryable,
  organizationId: string,
  staffId: string,
  now: number,
): Promise<number> {
  const ended = await rows(
    db,
    qb
      .updateTable("staff_sessions")
      .set({ ended_at: now })
      .where("organization_id", "=", organizationId)
      .where("staff_id", "=", staffId)
      .where("ended_at", "is", null)
      .returning("session_id"),
  );
  return ended.length;
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
