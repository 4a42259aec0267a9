// Staff users (the fiduciary's admins, DPOs and read-only viewers) and their passwords.
import type { Database, Queryable } from "../db/database.js";
import type { StaffRole } from "../lib/credentials.js";
import { Failure, notFound, unauthorized, validationError } from "../lib/failure.js";
import { newId } from "../lib/ids.js";
import { dummyPasswordHash, hashPassword, verifyPassword } from "../lib/secrets.js";
import { organizationDisabled } from "./organization-status.js";
import { beginSignInAttempt, signInSucceeded } from "./sign-in-limits.js";
import {
  endStaffUserSessions,
  findOrganizationById,
  insertStaffUser,
  setStaffUserPasswordHash,
  staffUserForSignIn,
} from "./store.js";

export interface StaffUser {
  staffId: string;
  organizationId: string;
  email: string;
  role: StaffRole;
  createdAt: number;
}

/**
 * Password length bounds, the contract's for createStaffAccount (12 to 1024), kept for the CLI too.
 * NIST SP 800-63B asks for at least 8 and no composition rules.
 */
const MIN_PASSWORD_LENGTH = 12;
const MAX_PASSWORD_LENGTH = 1024;

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

function checkPasswordLength(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw validationError(
      "password",
      `password must be ${MIN_PASSWORD_LENGTH}-${MAX_PASSWORD_LENGTH} characters`,
    );
  }
}

export async function createStaffUser(
  db: Queryable,
  input: { organizationId: string; email: string; role: StaffRole; password: string },
  now: number,
): Promise<StaffUser> {
  const email = normaliseEmail(input.email);
  if (!EMAIL_PATTERN.test(email) || email.length > 254)
    throw validationError("email", "email is not a valid email address");
  checkPasswordLength(input.password);
  const staffId = newId("stf");
  const inserted = await insertStaffUser(db, {
    organizationId: input.organizationId,
    staffId,
    email,
    role: input.role,
    passwordHash: await hashPassword(input.password),
    createdAt: now,
  });
  if (!inserted) {
    throw new Failure("CONFLICT", `A staff user with email ${email} already exists in this organisation`, {
      field: "email",
    });
  }
  return { staffId, organizationId: input.organizationId, email, role: input.role, createdAt: now };
}

/**
 * Sets a new password on the organisation's staff user `staffId` (only its scrypt hash is stored)
 * and ends every open session of the account, so whoever held the old password is signed out. Run
 * it in a transaction: the new hash and the ended sessions commit together. NOT_FOUND when the
 * organisation has no such user. The account's role and disabled state are unchanged.
 */
export async function setStaffPassword(
  tx: Queryable,
  input: { organizationId: string; staffId: string; password: string },
  now: number,
): Promise<{ sessionsEnded: number }> {
  checkPasswordLength(input.password);
  const passwordHash = await hashPassword(input.password);
  if (!(await setStaffUserPasswordHash(tx, input.organizationId, input.staffId, passwordHash))) {
    throw notFound("No such staff account in this organisation");
  }
  return { sessionsEnded: await endStaffUserSessions(tx, input.organizationId, input.staffId, now) };
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
  const found = await staffUserForSignIn(db, input.organizationSlug, normaliseEmail(input.email));
  const ok = await verifyPassword(input.password, found?.passwordHash ?? (await dummyPasswordHash()));
  if (!found || !ok) return undefined;
  const { passwordHash: _hash, ...user } = found;
  return user;
}

/**
 * Sign-in under the sign-in limits (sign-in-limits.ts): the staff user, or 429 RATE_LIMITED before
 * any password is checked, or one 401 UNAUTHORIZED for an unknown organisation, unknown email or
 * wrong password. `clientAddress` is the client's own address (behind a trusted proxy, the one it
 * forwarded).
 */
export async function signInStaff(
  db: Database,
  input: { organizationSlug: string; email: string; password: string; clientAddress: string },
  now: number,
): Promise<StaffUser> {
  const attempt = await beginSignInAttempt(
    db,
    {
      organizationSlug: input.organizationSlug,
      normalisedEmail: normaliseEmail(input.email),
      clientAddress: input.clientAddress,
    },
    now,
  );
  const staff = await checkStaffCredentials(db, input);
  // A failure was counted when the attempt began; only a success has anything to record.
  if (!staff) throw unauthorized("Unknown organisation, email or password");
  await signInSucceeded(db, attempt, now);
  // Checked after the password, so only the organisation's own staff learn that it is disabled;
  // the right password still counts as a success (it is no guess to slow down).
  if ((await findOrganizationById(db, staff.organizationId))?.disabledAt != null) {
    throw organizationDisabled();
  }
  return staff;
}
