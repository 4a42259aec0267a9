// Staff dashboard sessions: server-side rows keyed by the SHA-256 of an opaque cookie value, so a
// leaked database does not yield usable cookies. Each session has its own CSRF token, which
// cookie-authenticated writes must echo in `X-CSRF-Token`.
import type { Queryable } from "../db/database.js";
import { newId, randomBase62 } from "../lib/ids.js";
import { sha256Hex } from "../lib/secrets.js";
import type { StaffUser } from "./staff.js";
import { endStaffSessionRow, insertStaffSession, liveStaffSession, type LiveStaffSession } from "./store.js";

export const SESSION_COOKIE = "guard_session";

export async function startStaffSession(
  db: Queryable,
  staff: StaffUser,
  input: { now: number; ttlMs: number },
): Promise<{ cookieValue: string; session: LiveStaffSession }> {
  const cookieValue = randomBase62(43); // ~256 bits
  await insertStaffSession(db, {
    organizationId: staff.organizationId,
    sessionId: newId("ses"),
    staffId: staff.staffId,
    tokenHash: sha256Hex(cookieValue),
    csrfToken: randomBase62(32),
    createdAt: input.now,
    expiresAt: input.now + input.ttlMs,
  });
  const session = await resolveStaffSession(db, cookieValue, input.now);
  if (!session) throw new Error("A session just created could not be read back");
  return { cookieValue, session };
}

/** The live session of a cookie value, or undefined when unknown, ended or expired. */
export async function resolveStaffSession(
  db: Queryable,
  cookieValue: string,
  now: number,
): Promise<LiveStaffSession | undefined> {
  if (cookieValue.length > 200) return undefined;
  return liveStaffSession(db, sha256Hex(cookieValue), now);
}

export async function endStaffSession(
  db: Queryable,
  input: { organizationId: string; sessionId: string; now: number },
): Promise<void> {
  await endStaffSessionRow(db, input.organizationId, input.sessionId, input.now);
}
