// Children (DPDP Act s.9). A fiduciary may not track, behaviourally monitor or target advertising
// at a child (s.9(3)); an organisation setting (`blockTrackingForChildren`, on by default) makes
// Guard refuse such purposes for a principal verified as a child with 403 MINOR_TRACKING_BLOCKED.
//
// Who is a verified child: a principal for whom verifiable parental consent was recorded through
// POST /api/v1/age/verify-parent (a parental_verifications row). That route is called for the child's
// own profile ("the brokered principal is the profile being verified"), so a successful parental
// verification is exactly the evidence that the principal is a child.
//
// Which purposes are tracking: the notice decides when it can. An itemised purpose may carry an
// explicit `tracking: true | false` (additive to the Notice schema), which wins. Without it, the
// purpose label is matched against a deliberately broad keyword list (tracking, behavioural,
// monitoring, targeting, advertising, ads, retargeting, remarketing, profiling, marketing,
// analytics), so an unflagged purpose that sounds like tracking is treated as tracking. A false
// positive costs a child a consent the fiduciary can re-declare with `tracking: false`; a false
// negative would be processing the Act forbids.
import type { Queryable } from "../db/database.js";
import { hasParentalVerification } from "./store.js";

const TRACKING_WORDS =
  /\b(?:track\w*|behaviou?r\w*|monitor\w*|target\w*|advert\w*|ads?|retarget\w*|re-?market\w*|profiling|marketing|analytics)\b/i;

/** The notice's itemised entry as stored (other fields may be present). */
export interface ItemizedEntry {
  purpose: string;
  personalDataDescription?: string;
  tracking?: unknown;
}

export function isTrackingPurpose(entry: ItemizedEntry): boolean {
  if (typeof entry.tracking === "boolean") return entry.tracking;
  return TRACKING_WORDS.test(entry.purpose);
}

/** Whether the principal is a verified child: a parental verification was recorded for it. */
export function isVerifiedChild(
  db: Queryable,
  organizationId: string,
  principalId: string,
): Promise<boolean> {
  return hasParentalVerification(db, organizationId, principalId);
}
