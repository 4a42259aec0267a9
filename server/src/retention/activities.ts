// The RoPA register's processing activities, as retention policies need them: a policy may be
// written for an activity, and takes its purpose (ropa/store.ts).
import { findProcessingActivity } from "../ropa/store.js";
import type { ActivityLookup } from "./policies.js";

export const ropaActivities: ActivityLookup = async (db, organizationId, activityId) => {
  const activity = await findProcessingActivity(db, organizationId, activityId);
  return activity && { purpose: activity.purpose, archivedAt: activity.archivedAt };
};
