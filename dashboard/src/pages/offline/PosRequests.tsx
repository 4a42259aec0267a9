// Point-of-sale requests (issue 26 item 5): consent requests a till started for a customer, listed
// by status (expired first: the ones left unanswered for 72 hours that staff follow up). A dpo or
// admin closes an expired request with a note saying what was done. Phone numbers are never shown:
// Guard keeps only their keyed hash, and the contract's record does not carry it.
import { useState } from "react";
import { api, ok, type Schemas } from "../../api/client.js";
import { withFieldError } from "../../api/errors.js";
import {
  ConfirmDialog,
  DataTable,
  DateTime,
  Notice,
  useCanWrite,
  WriteGuard,
  type Column,
} from "../../ui/index.js";
import { PagedBody, ShowFilter } from "../integrations/ListStatus.js";
import { usePagedList } from "../integrations/usePagedList.js";
import { CapabilityOff, isSwitchedOff, NoteField } from "./shared.js";

type PosRequest = Schemas["PosConsentRequest"];
type PosStatus = PosRequest["status"];

/** The contract's statuses, in the order the filter offers them (expired, the default, first). */
export const POS_STATUSES: { value: PosStatus; label: string }[] = [
  { value: "expired", label: "Expired, to follow up" },
  { value: "pending", label: "Pending (waiting for the customer)" },
  { value: "confirmed", label: "Confirmed" },
  { value: "declined", label: "Declined" },
  { value: "closed", label: "Closed after follow-up" },
];

const TONES: Record<PosStatus, string> = {
  pending: "paused",
  confirmed: "ok",
  declined: "muted",
  expired: "off",
  closed: "muted",
};
const STATUS_WORDS: Record<PosStatus, string> = {
  pending: "Pending",
  confirmed: "Confirmed",
  declined: "Declined",
  expired: "Expired",
  closed: "Closed",
};

export function PosSection() {
  const canWrite = useCanWrite();
  const [status, setStatus] = useState<PosStatus>("expired");
  const list = usePagedList(
    async (cursor) => {
      const data = await ok(api.GET("/api/v1/staff/offline/pos", { params: { query: { cursor, status } } }));
      return { items: data.requests, nextCursor: data.nextCursor };
    },
    [status],
  );
  const [closing, setClosing] = useState<PosRequest | null>(null);
  const [note, setNote] = useState("");
  const [noteError, setNoteError] = useState<unknown>(undefined);
  const [done, setDone] = useState<string | null>(null);
  // 404 while the organisation's `offline_async_consent` capability is off.
  const switchedOff = isSwitchedOff(list.error);

  const columns: Column<PosRequest>[] = [
    {
      key: "request",
      header: "Request",
      rowHeader: true,
      render: (r) => <code className="integrations-break">{r.requestId}</code>,
    },
    { key: "purpose", header: "Purpose", render: (r) => r.purpose },
    {
      key: "notice",
      header: "Notice",
      render: (r) => (
        <>
          <code className="integrations-break">{r.noticeId}</code> v{r.noticeVersion}
        </>
      ),
    },
    { key: "created", header: "Asked", render: (r) => <DateTime value={r.createdAt} /> },
    { key: "expires", header: "Expires", render: (r) => <DateTime value={r.expiresAt} /> },
    {
      key: "status",
      header: "Status",
      render: (r) => (
        <>
          <span className={`integrations-state integrations-state-${TONES[r.status]}`}>
            {STATUS_WORDS[r.status]}
          </span>
          {r.answeredAt !== null ? (
            <span className="offline-sub">
              <DateTime value={r.answeredAt} />
              {r.consentId ? (
                <>
                  {" "}
                  <code className="integrations-break">{r.consentId}</code>
                </>
              ) : null}
            </span>
          ) : null}
          {r.closedAt !== null ? (
            <span className="offline-sub">
              <DateTime value={r.closedAt} />
              {r.closeNote ? `: ${r.closeNote}` : null}
            </span>
          ) : null}
        </>
      ),
    },
  ];
  if (canWrite)
    columns.push({
      key: "actions",
      header: <span className="visually-hidden">Actions</span>,
      align: "end",
      render: (r) =>
        r.status === "expired" ? (
          <button
            type="button"
            className="button button-small"
            aria-label={`Close ${r.requestId}`}
            onClick={() => {
              setNote("");
              setNoteError(undefined);
              setClosing(r);
            }}
          >
            Close
          </button>
        ) : null,
    });

  return (
    <section className="integrations-section" aria-labelledby="pos">
      <h2 id="pos">Point-of-sale requests</h2>
      <p className="integrations-intro">
        A till asks for consent when a customer&apos;s phone number is keyed in; the receipt carries a link
        where the customer confirms or declines. Requests left unanswered for 72 hours expire here for
        follow-up. Phone numbers are never shown: Guard keeps only a keyed hash.
      </p>
      {done ? <Notice tone="success">{done}</Notice> : null}
      {switchedOff ? (
        <CapabilityOff what="Point-of-sale and IVR consent" capability="offline_async_consent" />
      ) : (
        <>
          {/* Nothing to wrap: the guard tells a viewer why expired requests carry no close button. */}
          <WriteGuard>{null}</WriteGuard>
          <ShowFilter
            value={status}
            onChange={setStatus}
            options={POS_STATUSES}
            label="Which point-of-sale requests to show"
          />
          <PagedBody list={list} what="point-of-sale requests">
            <DataTable
              caption="Requests from tills"
              captionHidden
              columns={columns}
              rows={list.items}
              rowKey={(r) => r.requestId}
              empty={<p className="integrations-empty">No point-of-sale requests to show.</p>}
            />
          </PagedBody>
        </>
      )}
      <ConfirmDialog
        open={closing !== null}
        title={`Close the request ${closing?.requestId ?? ""}?`}
        confirmLabel="Close request"
        onCancel={() => setClosing(null)}
        onConfirm={async () => {
          if (!closing) return;
          const succeeded = await withFieldError(
            "note",
            () =>
              ok(
                api.POST("/api/v1/staff/offline/pos/{requestId}/close", {
                  params: { path: { requestId: closing.requestId } },
                  body: { note: note.trim() },
                }),
              ),
            setNoteError,
          );
          if (!succeeded) return;
          setDone(`${closing.requestId} is closed. No consent was given; your note is kept with it.`);
          setClosing(null);
          list.reload();
        }}
      >
        <p>
          Closing records what you did about it; it gives no consent. The customer&apos;s link stays unusable.
        </p>
        <NoteField
          value={note}
          onChange={setNote}
          error={noteError}
          hint="What was done: called the customer, nothing to do… Kept with the request and in the audit trail."
        />
      </ConfirmDialog>
    </section>
  );
}
