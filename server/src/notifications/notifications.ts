// The staff list of notifications sent to principals: who was told what, and when. Principals are
// named on the wire by externalId (the accounts domain's), in the store by principal id.
import { findPrincipalRow, findPrincipalsByIds } from "../accounts/store.js";
import type { Queryable } from "../db/database.js";
import { keysetPage, pageScope, type Page, type PageRequest } from "../lib/paging.js";
import { listNotifications, type NotificationKind, type NotificationRecord } from "./store.js";

export interface NotificationView extends NotificationRecord {
  externalId: string;
}

export interface NotificationQuery extends PageRequest {
  /** The principal's externalId. */
  principal?: string | undefined;
  kind?: NotificationKind | undefined;
  subjectId?: string | undefined;
}

export async function pageNotifications(
  db: Queryable,
  organizationId: string,
  query: NotificationQuery,
): Promise<Page<NotificationView>> {
  let principalId: string | undefined;
  if (query.principal !== undefined) {
    const principal = await findPrincipalRow(db, organizationId, { externalId: query.principal });
    // A principal the organisation never saw has been told nothing.
    if (!principal) return { items: [], nextCursor: null };
    principalId = principal.principalId;
  }
  const page = await keysetPage(
    query,
    {
      // The filters are part of the scope: a cursor of one principal's list does not page another's.
      scope: pageScope(
        "listPrincipalNotifications",
        organizationId,
        principalId ?? "",
        query.kind ?? "",
        query.subjectId ?? "",
      ),
      shape: ["number", "string"],
      keyOf: (n: NotificationRecord): [number, string] => [n.createdAt, n.notificationId],
    },
    (after, limit) =>
      listNotifications(db, organizationId, {
        principalId,
        kind: query.kind,
        subjectId: query.subjectId,
        after,
        limit,
      }),
  );
  const principals = await findPrincipalsByIds(
    db,
    [...new Set(page.items.map((n) => n.principalId))].map((id) => ({ organizationId, principalId: id })),
  );
  const externalIdOf = new Map(principals.map((p) => [p.principalId, p.externalId]));
  return {
    items: page.items.map((n) => {
      const externalId = externalIdOf.get(n.principalId);
      // principal_notifications references principals by a foreign key.
      if (externalId === undefined) throw new Error(`principal ${n.principalId} does not exist`);
      return { ...n, externalId };
    }),
    nextCursor: page.nextCursor,
  };
}

/** The contract's PrincipalNotification. */
export const notificationToWire = (n: NotificationView) => ({
  notificationId: n.notificationId,
  externalId: n.externalId,
  kind: n.kind,
  subjectId: n.subjectId,
  channel: n.channel,
  subject: n.subject,
  body: n.body,
  createdAt: n.createdAt,
});
