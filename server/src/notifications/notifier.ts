// How Guard tells a data principal something the DPDP Rules require a fiduciary to say: that her
// data will be erased in at least 48 hours unless she returns (r.8(2)), or that a breach affected
// her data (r.7(1)). Domains (retention/, breaches/) call a Notifier inside their own transaction,
// so the notification exists exactly when the change that required it committed.
//
// Guard holds no delivery address it could rely on (principals are the fiduciary's users, named by
// externalId), so the notifier that ships relays: it records the notification and raises the
// `principal.notification` webhook event through the outbox, and the fiduciary's backend delivers
// it through its own channel (email, SMS, in-app). Another Notifier (for example one that sends
// email itself) plugs in through AppContext.notifier.
import type { Queryable } from "../db/database.js";
import { findPrincipalsByIds } from "../accounts/store.js";
import { newId } from "../lib/ids.js";
import { enqueueEvent } from "../webhooks/outbox.js";
import { recordNotification, type NotificationKind } from "./store.js";

export interface PrincipalNotification {
  organizationId: string;
  /** principals.principal_id of the organisation's principal. */
  principalId: string;
  kind: NotificationKind;
  /** The scheduled erasure or breach the notification is about. */
  subjectId: string;
  /** Plain text; nothing personal beyond what the principal must be told. */
  message: { subject: string; body: string };
}

export interface Notifier {
  /**
   * Records (and, for a channel of its own, sends) one notification in the caller's transaction.
   * Notifying the same principal about the same subject again answers the first notification
   * (`created: false`) and sends nothing: a retried sweep never tells anyone twice.
   */
  notify(
    tx: Queryable,
    notification: PrincipalNotification,
    now: number,
  ): Promise<{ notificationId: string; created: boolean }>;
}

/** Raised for every notification the webhook relay records (contract: WebhookEventType). */
export const NOTIFICATION_EVENT = "principal.notification";

/** The shipped notifier: record, then relay to the fiduciary's backend as a webhook event. */
export class WebhookRelayNotifier implements Notifier {
  async notify(
    tx: Queryable,
    notification: PrincipalNotification,
    now: number,
  ): Promise<{ notificationId: string; created: boolean }> {
    const [principal] = await findPrincipalsByIds(tx, [
      { organizationId: notification.organizationId, principalId: notification.principalId },
    ]);
    // Callers name principals they read from their own rows; an unknown one is a bug, not input.
    if (!principal) throw new Error(`no principal ${notification.principalId} in the organisation`);
    const { record, created } = await recordNotification(tx, {
      organizationId: notification.organizationId,
      notificationId: newId("ntf"),
      principalId: notification.principalId,
      kind: notification.kind,
      subjectId: notification.subjectId,
      channel: "webhook",
      subject: notification.message.subject,
      body: notification.message.body,
      createdAt: now,
    });
    if (created) {
      await enqueueEvent(
        tx,
        {
          organizationId: notification.organizationId,
          eventType: NOTIFICATION_EVENT,
          payload: {
            notificationId: record.notificationId,
            kind: record.kind,
            subjectId: record.subjectId,
            externalId: principal.externalId,
            subject: record.subject,
            body: record.body,
            createdAt: record.createdAt,
          },
        },
        now,
      );
    }
    return { notificationId: record.notificationId, created };
  }
}
