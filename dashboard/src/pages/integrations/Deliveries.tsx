// One endpoint's deliveries: state, attempts, next retry, the latest answer; a delivery's payload
// and attempt history (getWebhookDelivery); and re-sending one (safe to repeat: the contract makes
// a second re-send of a queued delivery change nothing).
import { useState } from "react";
import { api, ok, type Schemas } from "../../api/client.js";
import { formatSpan } from "../../lib/time.js";
import {
  DataTable,
  DateTime,
  ErrorNotice,
  Loading,
  Notice,
  useApi,
  useCanWrite,
  useNow,
  type Column,
} from "../../ui/index.js";
import { PagedBody } from "./ListStatus.js";
import { usePagedList } from "./usePagedList.js";

type Endpoint = Schemas["WebhookEndpoint"];
type Delivery = Schemas["WebhookDelivery"];
type Status = Delivery["status"];

const STATUSES: Record<Status, string> = {
  pending: "Pending",
  sending: "Sending",
  delivered: "Delivered",
  dead: "Failed (gave up)",
  cancelled: "Cancelled",
};

/** "in 5 min" / "5 min ago", next to the absolute date. */
function Relative({ at, now }: { at: number; now: number }) {
  const span = formatSpan(at - now);
  return <span className="integrations-relative">({at >= now ? `in ${span}` : `${span} ago`})</span>;
}

function lastResult(d: Delivery): string {
  if (d.lastStatusCode !== null && d.lastError !== null) return `HTTP ${d.lastStatusCode}: ${d.lastError}`;
  if (d.lastStatusCode !== null) return `HTTP ${d.lastStatusCode}`;
  return d.lastError ?? "—";
}

export function Deliveries({ endpoint, onClose }: { endpoint: Endpoint; onClose: () => void }) {
  const canWrite = useCanWrite();
  const now = useNow(30_000);
  const [status, setStatus] = useState<Status | "">("");
  const list = usePagedList(
    async (cursor) => {
      const data = await ok(
        api.GET("/api/v1/staff/webhooks/{endpointId}/deliveries", {
          params: {
            path: { endpointId: endpoint.endpointId },
            query: { cursor, ...(status ? { status } : {}) },
          },
        }),
      );
      return { items: data.deliveries, nextCursor: data.nextCursor };
    },
    [endpoint.endpointId, status],
  );
  const [open, setOpen] = useState<string | null>(null);
  const [resending, setResending] = useState<string | null>(null);
  const [resendError, setResendError] = useState<unknown>(undefined);
  const [done, setDone] = useState<string | null>(null);

  const resend = async (d: Delivery) => {
    setResending(d.deliveryId);
    setResendError(undefined);
    setDone(null);
    try {
      const queued = await ok(
        api.POST("/api/v1/staff/webhooks/{endpointId}/deliveries/{deliveryId}/resend", {
          params: { path: { endpointId: endpoint.endpointId, deliveryId: d.deliveryId } },
        }),
      );
      setDone(`The ${queued.eventType} delivery is queued to be sent again (${STATUSES[queued.status]}).`);
      list.reload();
    } catch (caught) {
      setResendError(caught);
    } finally {
      setResending(null);
    }
  };

  const columns: Column<Delivery>[] = [
    {
      key: "event",
      header: "Event",
      rowHeader: true,
      render: (d) => <code className="integrations-nowrap">{d.eventType}</code>,
    },
    {
      key: "status",
      header: "Status",
      render: (d) => (
        <span className={`integrations-delivery integrations-delivery-${d.status}`}>
          {STATUSES[d.status]}
        </span>
      ),
    },
    { key: "attempts", header: "Attempts", align: "end", render: (d) => d.attempts },
    { key: "created", header: "Queued", render: (d) => <DateTime value={d.createdAt} /> },
    {
      key: "next",
      header: "Next retry",
      render: (d) =>
        d.nextAttemptAt === null ? (
          "—"
        ) : (
          <>
            <DateTime value={d.nextAttemptAt} /> <Relative at={d.nextAttemptAt} now={now} />
          </>
        ),
    },
    { key: "last", header: "Last answer", render: lastResult },
    {
      key: "actions",
      header: <span className="visually-hidden">Actions</span>,
      align: "end",
      render: (d) => (
        <span className="integrations-actions">
          <button
            type="button"
            className="button button-small"
            aria-expanded={open === d.deliveryId}
            aria-label={`Payload of ${d.eventType} ${d.deliveryId}`}
            onClick={() => setOpen(open === d.deliveryId ? null : d.deliveryId)}
          >
            Payload
          </button>
          {canWrite && endpoint.deletedAt === null ? (
            <button
              type="button"
              className="button button-small"
              aria-label={`Re-send ${d.eventType} ${d.deliveryId}`}
              disabled={resending === d.deliveryId || d.status === "sending"}
              onClick={() => void resend(d)}
            >
              Re-send
            </button>
          ) : null}
        </span>
      ),
    },
  ];

  return (
    <section className="integrations-subsection" aria-labelledby="deliveries-heading">
      <div className="integrations-subhead">
        <h3 id="deliveries-heading">
          Deliveries to <code className="integrations-break">{endpoint.url}</code>
        </h3>
        <button type="button" className="button button-small" onClick={onClose}>
          Close deliveries
        </button>
      </div>
      <label className="integrations-inline">
        Status{" "}
        <select value={status} onChange={(e) => setStatus(e.target.value as Status | "")}>
          <option value="">Any</option>
          {Object.entries(STATUSES).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      {done ? <Notice tone="success">{done}</Notice> : null}
      <ErrorNotice error={resendError} title="The delivery was not re-sent" />
      <PagedBody list={list} what="deliveries">
        <DataTable
          caption="Delivery list"
          captionHidden
          columns={columns}
          rows={list.items}
          rowKey={(d) => d.deliveryId}
          empty={
            <p className="integrations-empty">
              No deliveries{status ? ` in state “${STATUSES[status]}”` : ""} yet: one is queued for each
              subscribed event that happens while the endpoint is enabled.
            </p>
          }
        />
      </PagedBody>
      {open ? <DeliveryDetail key={open} endpointId={endpoint.endpointId} deliveryId={open} /> : null}
    </section>
  );
}

function DeliveryDetail({ endpointId, deliveryId }: { endpointId: string; deliveryId: string }) {
  const detail = useApi(
    () =>
      ok(
        api.GET("/api/v1/staff/webhooks/{endpointId}/deliveries/{deliveryId}", {
          params: { path: { endpointId, deliveryId } },
        }),
      ),
    [endpointId, deliveryId],
  );
  if (detail.error)
    return <ErrorNotice error={detail.error} title="Could not load the delivery" onRetry={detail.reload} />;
  if (!detail.data) return <Loading label="Loading the delivery…" />;
  const d = detail.data;
  return (
    <div className="integrations-detail" aria-label={`Delivery ${d.deliveryId}`} role="region">
      <h4>
        <code>{d.eventType}</code> · event <code>{d.eventId}</code>
      </h4>
      <p>
        Delivered: <DateTime value={d.deliveredAt} /> · Last attempt: <DateTime value={d.lastAttemptAt} />
      </p>
      <h5>Payload</h5>
      <pre className="integrations-pre" tabIndex={0} aria-label="Payload JSON">
        {JSON.stringify(d.payload, null, 2)}
      </pre>
      <DataTable
        caption="Attempts (newest first)"
        columns={[
          { key: "n", header: "Attempt", rowHeader: true, render: (a) => a.attempt },
          { key: "started", header: "Started", render: (a) => <DateTime value={a.startedAt} /> },
          { key: "took", header: "Took", align: "end", render: (a) => `${a.finishedAt - a.startedAt} ms` },
          { key: "status", header: "HTTP status", render: (a) => a.statusCode ?? "no answer" },
          { key: "error", header: "Error", render: (a) => a.error ?? "—" },
        ]}
        rows={d.history}
        rowKey={(a) => String(a.attempt)}
        empty={<p className="integrations-empty">No attempt yet.</p>}
      />
    </div>
  );
}
