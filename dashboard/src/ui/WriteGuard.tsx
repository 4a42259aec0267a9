// Viewers read every page; only dpo and admin change things (the server refuses otherwise). Pages
// wrap their write controls in <WriteGuard>, so a viewer sees why a control is missing instead of
// a button that would answer 403.
import type { ReactNode } from "react";
import { canWrite, isAdmin } from "../session/roles.js";
import { useStaff } from "../session/SessionProvider.js";

export function useCanWrite(): boolean {
  return canWrite(useStaff().role);
}

export function useIsAdmin(): boolean {
  return isAdmin(useStaff().role);
}

/**
 * Renders `children` for roles that may write (or, with `admin`, only for admins); otherwise the
 * `fallback`, by default a one-line explanation.
 */
export function WriteGuard({
  children,
  admin = false,
  fallback,
}: {
  children: ReactNode;
  admin?: boolean;
  fallback?: ReactNode;
}) {
  const { role } = useStaff();
  const allowed = admin ? isAdmin(role) : canWrite(role);
  if (allowed) return <>{children}</>;
  return (
    <>
      {fallback ?? (
        <p className="read-only-note">
          {admin
            ? "Only an admin can change this."
            : `Your role (${role}) can read this page but not change it. Ask an admin or the DPO.`}
        </p>
      )}
    </>
  );
}
