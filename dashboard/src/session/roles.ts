// The contract's staff roles: `viewer` reads everything; `dpo` and `admin` also write; some
// settings (capabilities, staff accounts) are `admin` only. The server enforces all of this; the
// dashboard only avoids offering what would be refused.
export type StaffRole = "admin" | "dpo" | "viewer";

export function canWrite(role: StaffRole | undefined): boolean {
  return role === "admin" || role === "dpo";
}

export function isAdmin(role: StaffRole | undefined): boolean {
  return role === "admin";
}

export const ROLE_LABELS: Record<StaffRole, string> = {
  admin: "Admin",
  dpo: "Data Protection Officer",
  viewer: "Viewer (read only)",
};
