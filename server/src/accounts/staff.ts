// Staff users (the fiduciary's admins, DPOs and read-only viewers) and their passwords.
import type { Queryable } from "../db/database.js";
import type { StaffRole } from "../lib/credentials.js";
import { newId } from "../lib/ids.js";
import { dummyPasswordHash, hashPassword, verifyPassword } from "../lib/secrets.js";

export interface StaffUser {
  staffId: string;
  organizationId: string;
  email: string;
  role: StaffRole;
  createdAt: number;
}

/** Minimum password length; NIST SP 800-63B asks for at least 8 and no composition rules. */
export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 1024;

export class StaffEmailTakenError extends Error {
  override name = "StaffEmailTakenError";
}

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function createStaffUser(
  db: Queryable,
  input: { organizationId: string; email: string; role: StaffRole; password: string },
  now: number,
): Promise<StaffUser> {
  const email = normaliseEmail(input.email);
  if (!EMAIL_PATTERN.test(email) || email.length > 254)
    throw new RangeError("email: not a valid email address");
  if (input.password.length < MIN_PASSWORD_LENGTH || input.password.length > MAX_PASSWORD_LENGTH) {
    throw new RangeError(`password: ${MIN_PASSWORD_LENGTH}-${MAX_PASSWORD_LENGTH} characters`);
  }
  const passwordHash = await hashPassword(input.password);
  const rows = await db.query<{ staff_id: string }>(
    `INSERT INTO staff_users (organization_id, staff_id, email, role, password_hash, created_at)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (organization_id, email) DO NOTHING RETURNING staff_id`,
    [input.organizationId, newId("stf"), email, input.role, passwordHash, now],
  );
  if (!rows[0])
    throw new StaffEmailTakenError(`A staff user with email ${email} already exists in this organisation`);
  return {
    staffId: rows[0].staff_id,
    organizationId: input.organizationId,
    email,
    role: input.role,
    createdAt: now,
  };
}

/**
 * The staff user whose organisation slug, email and password all match, else undefined. An unknown
 * organisation or email still costs one scrypt verification, so timing does not reveal which part
 * was wrong.
 */
export async function checkStaffCredentials(
  db: Queryable,
  input: { organizationSlug: string; email: string; password: string },
): Promise<StaffUser | undefined> {
  const rows = await db.query<{
    staff_id: string;
    organization_id: string;
    email: string;
    role: StaffRole;
    password_hash: string;
    created_at: number;
  }>(
    `SELECT s.staff_id, s.organization_id, s.email, s.role, s.password_hash, s.created_at
       FROM staff_users s JOIN organizations o ON o.organization_id = s.organization_id
      WHERE o.slug = $1 AND s.email = $2 AND s.disabled_at IS NULL`,
    [input.organizationSlug, normaliseEmail(input.email)],
  );
  const row = rows[0];
  const ok = await verifyPassword(input.password, row?.password_hash ?? (await dummyPasswordHash()));
  if (!row || !ok) return undefined;
  return {
    staffId: row.staff_id,
    organizationId: row.organization_id,
    email: row.email,
    role: row.role,
    createdAt: row.created_at,
  };
}
