// What principals were told (issue 27): every notification the DPDP Rules require, as Guard recorded
// and relayed it (a coming erasure, r.8(2); a breach, r.7(1)), filtered by principal and kind.
// Read only for every role: notifications are sent by the retention sweep and the breach page.
import { useState } from "react";
import { api, ok, type Schemas } from "../../api/client.js";
import { NOTIFICATION_KIND_LABELS } from "../../lib/registers.js";
import { Link } from "../../router.js";
import { DataTable, DateTime, Page, type Column } from "../../ui/index.js";
import { PagedBody } from "../integrations/ListStatus.js";
import { usePagedList } from "../integrations/usePagedList.js";
import "./registers.css";

type Notification = Schemas["PrincipalNotification"];
type Kind = Schemas["PrincipalNotificationKind"];
const KINDS = Object.keys(NOTIFICATION_KIND_LABELS) as Kind[];

export default function NotificationsPage() {
  const [kind, setKind] = useState<"" | Kind>("");
  const [principalInput, setPrincipalInput] = useState("");
  const [principal, setPrincipal] = useState("");
  const list = usePagedList(
    async (cursor) => {
      const data = await ok(
        api.GET("/api/v1/staff/notifications", {
          params: { query: { cursor, ...(kind ? { kind } : {}), ...(principal ? { principal } : {}) } },
        }),
      );
      return { items: data.notifications, nextCursor: data.nextCursor };
    },
    [kind, principal],
  );
  const columns: Column<Notification>[] = [
    { key: "when", header: "Sent", render: (n) => <DateTime value={n.createdAt} /> },
    { key: "principal", header: "Principal", rowHeader: true, render: (n) => n.externalId },
    {
      key: "kind",
      header: "About",
      render: (n) =>
        n.kind === "breach.affected" ? (
          <Link to={`/breaches/${encodeURIComponent(n.subjectId)}`}>{NOTIFICATION_KIND_LABELS[n.kind]}</Link>
        ) : (
          <>
            {NOTIFICATION_KIND_LABELS[n.kind]} <span className="registers-id">{n.subjectId}</span>
          </>
        ),
    },
    {
      key: "message",
      header: "Message",
      render: (n) => (
        <details>
          <summary>{n.subject}</summary>
          <p className="registers-body">{n.body}</p>
        </details>
      ),
    },
    {
      key: "channel",
      header: "Channel",
      render: (n) => (n.channel === "webhook" ? "Relayed to your backend" : n.channel),
    },
  ];
  return (
    <Page
      title="Notifications"
      intro="What principals were told: the notice before their data is erased and the intimation of a breach. Guard holds no delivery address, so each is relayed to your backend (the principal.notification webhook event) to deliver."
    >
      <form
        className="registers-filters"
        aria-label="Filters"
        onSubmit={(e) => {
          e.preventDefault();
          setPrincipal(principalInput.trim());
        }}
      >
        <div className="field">
          <label htmlFor="notification-principal">Principal (externalId)</label>
          <input
            id="notification-principal"
            value={principalInput}
            onChange={(e) => setPrincipalInput(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="notification-kind">About</label>
          <select id="notification-kind" value={kind} onChange={(e) => setKind(e.target.value as "" | Kind)}>
            <option value="">Anything</option>
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {NOTIFICATION_KIND_LABELS[k]}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="button">
          Filter
        </button>
      </form>
      <PagedBody list={list} what="notifications">
        <DataTable
          caption="Notifications to principals"
          captionHidden
          columns={columns}
          rows={list.items}
          rowKey={(n) => n.notificationId}
          empty={<p className="registers-intro">No notifications{principal ? ` to ${principal}` : ""}.</p>}
        />
      </PagedBody>
    </Page>
  );
}
