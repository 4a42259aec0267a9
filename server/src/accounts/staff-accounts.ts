// Staff account management by an organisation's admins: create an account (with a generated
// one-time password when none is given), change its role, disable or re-enable it. Two rules hold
// whatever the requests: an admin cannot change their own role or disable themselves, and the
// organisation always keeps at least one enabled admin. Disabling ends the account's sessions in the
// same transaction; sessions are read from the database on every request (no cache), so the next
// request with one of them is 401.
import { randomBytes } from "node:crypto";
import type { Queryable } from "../db/database.js";
import type { StaffRole } from "../lib/credentials.js";
import { Failure, notFound } from "../lib/failure.js";
import { createStaffUser } from "./staff.js";
import {
  endStaffUserSessions,
  findStaffUser,
  lockEnabledAdmins,
  setStaffUserAccess,
  type StaffAccountRow,
} from "./store.js";

export type StaffAccount = StaffAccountRow;

/** 18 random bytes, 24 base64url characters (144 bits): beyond guessing, short enough to type once. */
const GENERATED_PASSWORD_BYTES = 18;

export const generatePassword = (): string => randomBytes(GENERATED_PASSWORD_BYTES).toString("base64url");

/**
 * Creates an account in the organisation. Without `password` one is generated and returned, this
 * once (only its hash is stored). An email the organisation already uses is CONFLICT on `email`.
 */
export async function createStaffAccount(
  db: Queryable,
  input: { organizationId: string; email: string; role: StaffRole; password?: string | undefined },
  now: number,
): Promise<{ account: StaffAccount; generatedPassword: string | null }> {
  const generatedPassword = input.password === undefined ? generatePassword() : null;
  const user = await createStaffUser(
    db,
    {
      organizationId: input.organizationId,
      email: input.email,
      role: input.role,
      password: input.password ?? generatedPassword!,
    },
    now,
  );
  return {
    account: {
      staffId: user.staffId,
      email: user.email,
      role: user.role,
      createdAt: user.createdAt,
      disabledAt: null,
    },
    generatedPassword,
  };
}

const conflict = (field: "role" | "disabled", message: string) => new Failure("CONFLICT", message, { field });

/**
 * Sets the account's role and/or disabled state, on behalf of the admin `actorStaffId`, or of the
 * operator when it is null (`guard staff disable|enable`: the system actor holds no account, so the
 * rules about an admin's own account do not apply, the last-enabled-admin rule does); a field
 * left undefined is unchanged and a value the account already has changes nothing. Run it in a
 * transaction: the organisation's enabled admins are locked first, so of two concurrent changes
 * that would each leave one admin, the second sees the first's result and is refused.
 */
export async function updateStaffAccount(
  tx: Queryable,
  input: {
    organizationId: string;
    /** The admin making the change; null for the operator (CLI), who is no staff account. */
    actorStaffId: string | null;
    staffId: string;
    role?: StaffRole | undefined;
    disabled?: boolean | undefined;
  },
  now: number,
): Promise<StaffAccount> {
  const enabledAdmins = await lockEnabledAdmins(tx, input.organizationId);
  const current = await findStaffUser(tx, input.organizationId, input.staffId, { forUpdate: true });
  if (!current) throw notFound("No such staff account in this organisation");

  const role = input.role ?? current.role;
  const wasDisabled = current.disabledAt !== null;
  const disabled = input.disabled ?? wasDisabled;
  const disabling = disabled && !wasDisabled;

  if (input.staffId === input.actorStaffId) {
    // An admin locking themselves out is almost always a slip; another admin can do it for them.
    if (role !== current.role) throw conflict("role", "An admin cannot change their own role");
    if (disabling) throw conflict("disabled", "An admin cannot disable their own account");
  }
  const losesAdmin = enabledAdmins.includes(current.staffId) && (role !== "admin" || disabled);
  if (losesAdmin && enabledAdmins.length <= 1) {
    throw conflict(
      disabling ? "disabled" : "role",
      "The organisation must keep at least one enabled admin; make another account admin first",
    );
  }
  if (role === current.role && disabled === wasDisabled) return current;

  const updated = await setStaffUserAccess(tx, input.organizationId, input.staffId, {
    role,
    // Re-disabling keeps the original time; re-enabling clears it.
    disabledAt: disabled ? (current.disabledAt ?? now) : null,
  });
  if (!updated) throw new Error("A staff account locked in this transaction could not be updated");
  if (disabling) await endStaffUserSessions(tx, input.organizationId, input.staffId, now);
  return updated;
}
