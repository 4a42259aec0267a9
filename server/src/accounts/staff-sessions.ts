// Staff dashboard sessions: server-side rows keyed by the SHA-256 of an opaque cookie value, so a
// leaked database does not yield usable cookies. Each session has its own CSRF token, which
// cookie-authenticated writes must echo in `X-CSRF-Token`.
import type { Queryable } from "../db/database.js";
import type { StaffRole } from "../lib/credentials.js";
import { newId, randomBase62 } from "../lib/ids.js";
import { sha256Hex } from "../lib/secrets.js";
import type { StaffUser } from "./staff.js";

export const SESSION_COOKIE = "guard_session";

export interface StaffSessionView {
  sessionId: string;
  staffId: string;
  organizationId: string;
  organizationSlug: string;
  email: string;
  role: StaffRole;
  csrfToken: string;
  expiresAt: number;
}

export async function startStaffSession(
  db: Queryable,
  staff: StaffUser,
  input: { now: number; ttlMs: number },
): Promise<{ cookieValue: string; session: StaffSessionView }> {
  const cookieValue = randomBase62(43); // ~256 bits
  const csrfToken = randomBase62(32);
  const sessionId = newId("ses");
  const expiresAt = input.now + input.ttlMs;
  await db.query(
    `INSERT INTO staff_sessions (organization_id, session_id, staff_id, token_hash, csrf_token, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [staff.organizationId, sessionId, staff.staffId, sha256Hex(cookieValue), csrfToken, input.now, expiresAt],
  );
  const session = await resolveStaffSession(db, cookieValue, input.now);
  if (!session) throw new Error("A session just created could not be read back");
  return { cookieValue, session };
}

/** The live session of a cookie value, or undefined when unknown, ended or expired. */
export async function resolveStaffSession(
  db: Queryable,
  cookieValue: string,
  now: number,
): Promise<StaffSessionView | undefined> {
  if (cookieValue.length > 200) return undefined;
  const rows = await db.query<{
    session_id: string;
    staff_id: string;
    organization_id: string;
    slug: string;
    email: string;
    role: StaffRole;
    csrf_token: string;
    expires_at: number;
  }>(
    `SELECT ss.session_id, ss.staff_id, ss.organization_id, o.slug, su.email, su.role, ss.csrf_token, ss.expires_at
       FROM staff_sessions ss
       JOIN staff_users su ON su.organization_id = ss.organization_id AND su.staff_id = ss.staff_id
       JOIN organizations o ON o.organization_id = ss.organization_id
      WHERE ss.token_hash = $1 AND ss.ended_at IS NULL AND ss.expires_at > $2 AND su.disabled_at IS NULL`,
    [sha256Hex(cookieValue), now],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    sessionId: row.session_id,
    staffId: row.staff_id,
    organizationId: row.organization_id,
    organizationSlug: row.slug,
    email: row.email,
    role: row.role,
    csrfToken: row.csrf_token,
    expiresAt: row.expires_at,
  };
}

export async function endStaffSession(
  db: Queryable,
  input: { organizationId: string; sessionId: string; now: number },
): Promise<void> {
  await db.query(
    "UPDATE staff_sessions SET ended_at = $3 WHERE organization_id = $1 AND session_id = $2 AND ended_at IS NULL",
    [input.organizationId, input.sessionId, input.now],
  );
}
