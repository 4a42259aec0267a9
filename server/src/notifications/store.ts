// principal_notifications: what was sent to data principals, and when. The only code that touches
// the table; notifier.ts writes through recordNotification, notifications.ts pages the staff list.
import type { Queryable } from "../db/database.js";
import { first, qb, rows } from "../db/query.js";

export type NotificationKind = "retention.pre_erasure" | "breach.affected";
export type NotificationChannel = "webhook";

export interface NotificationRecord {
  organizationId: string;
  notificationId: string;
  principalId: string;
  kind: NotificationKind;
  subjectId: string;
  channel: NotificationChannel;
  subject: string;
  body: string;
  createdAt: number;
}

type NotificationRow = {
  organization_id: string;
  notification_id: string;
  principal_id: string;
  kind: string;
  subject_id: string;
  channel: string;
  subject: string;
  body: string;
  created_at: string | number;
};

const notificationOf = (row: NotificationRow): NotificationRecord => ({
  organizationId: row.organization_id,
  notificationId: row.notification_id,
  principalId: row.principal_id,
  kind: row.kind as NotificationKind,
  subjectId: row.subject_id,
  channel: row.channel as NotificationChannel,
  subject: row.subject,
  body: row.body,
  createdAt: Number(row.created_at),
});

/**
 * Inserts the notification unless the principal was already notified about that subject; answers
 * the stored row and whether this call created it.
 */
export async function recordNotification(
  tx: Queryable,
  notification: NotificationRecord,
): Promise<{ record: NotificationRecord; created: boolean }> {
  const inserted = await first(
    tx,
    qb
      .insertInto("principal_notifications")
      .values({
        organization_id: notification.organizationId,
        notification_id: notification.notificationId,
        principal_id: notification.principalId,
        kind: notification.kind,
        subject_id: notification.subjectId,
        channel: notification.channel,
        subject: notification.subject,
        body: notification.body,
        created_at: notification.createdAt,
      })
      .onConflict((oc) => oc.columns(["organization_id", "kind", "subject_id", "principal_id"]).doNothing())
      .returningAll(),
  );
  if (inserted) return { record: notificationOf(inserted), created: true };
  const existing = await first(
    tx,
    qb
      .selectFrom("principal_notifications")
      .selectAll()
      .where("organization_id", "=", notification.organizationId)
      .where("kind", "=", notification.kind)
      .where("subject_id", "=", notification.subjectId)
      .where("principal_id", "=", notification.principalId),
  );
  if (!existing) throw new Error("principal notification vanished between insert and read");
  return { record: notificationOf(existing), created: false };
}

/** A page of the organisation's notifications, newest first, keyed by (created_at, notification_id). */
export async function listNotifications(
  db: Queryable,
  organizationId: string,
  read: {
    principalId?: string | undefined;
    kind?: NotificationKind | undefined;
    subjectId?: string | undefined;
    after?: readonly [number, string] | undefined;
    limit: number;
  },
): Promise<NotificationRecord[]> {
  let query = qb
    .selectFrom("principal_notifications")
    .selectAll()
    .where("organization_id", "=", organizationId);
  if (read.principalId !== undefined) query = query.where("principal_id", "=", read.principalId);
  if (read.kind !== undefined) query = query.where("kind", "=", read.kind);
  if (read.subjectId !== undefined) query = query.where("subject_id", "=", read.subjectId);
  const after = read.after;
  if (after)
    query = query.where((eb) => eb(eb.refTuple("created_at", "notification_id"), "<", eb.tuple(...after)));
  const found = await rows(
    db,
    query.orderBy("created_at", "desc").orderBy("notification_id", "desc").limit(read.limit),
  );
  return found.map(notificationOf);
}
