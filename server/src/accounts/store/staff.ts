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
