// Captures to review (issue 26 item 2): the signed sessions enrolled devices synced, the quarantined
// ones first. A dpo or admin releases a session whose signature held and only its timing failed
// (the contract allows `clock_skew` and `notice_superseded`), which creates its consents and hands
// back the withdrawal code for the principal, or rejects any quarantined session. Both ask why.
import { useState } from "react";
import { api, ok, type Schemas } from "../../api/client.js";
import { withFieldError } from "../../api/errors.js";
import {
  ConfirmDialog,
  CopyButton,
  DataTable,
  DateTime,
  Notice,
  useApi,
  useCanWrite,
  WriteGuard,
  type Column,
} from "../../ui/index.js";
import { PagedBody, ShowFilter } from "../integrations/ListStatus.js";
import { usePagedList } from "../integrations/usePagedList.js";
import { CapabilityOff, isSwitchedOff, NoteField } from "./shared.js";

type Capture = Schemas["OfflineCaptureRecord"];
type Reason = NonNullable<Capture["reason"]>;

/** What the filter offers, as the list's query (status and review status, both optional). */
export const CAPTURE_FILTERS = [
  {
    value: "pending",
    label: "Waiting for review",
    query: { status: "quarantined", reviewStatus: "pending" },
  },
  { value: "released", label: "Released by staff", query: { reviewStatus: "released" } },
  { value: "rejected_by_staff", label: "Rejected by staff", query: { reviewStatus: "rejected_by_staff" } },
  { value: "quarantined", label: "Every quarantined session", query: { status: "quarantined" } },
  { value: "verified", label: "Verified on receipt", query: { status: "verified" } },
  { value: "rejected", label: "Rejected on receipt", query: { status: "rejected" } },
  { value: "all", label: "Every session", query: {} },
] as const satisfies readonly {
  value: string;
  label: string;
  query: { status?: Capture["status"]; reviewStatus?: NonNullable<Capture["reviewStatus"]> | "pending" };
}[];
type CaptureFilter = (typeof CAPTURE_FILTERS)[number]["value"];

export const REASON_LABELS: Record<Reason, string> = {
  unknown_device: "Device not enrolled",
  device_revoked: "Device revoked",
  signature_mismatch: "Signature does not verify",
  clock_skew: "Device clock more than 7 days off",
  notice_unpublished: "Notice version never published",
  notice_superseded: "Newer notice published since",
  invalid_session: "Not a valid session",
};

/** The reasons the contract lets staff release: the signature held, only the timing failed. */
const RELEASABLE: readonly Reason[] = ["clock_skew", "notice_superseded"];
export const isReleasable = (c: Capture): boolean =>
  c.status === "quarantined" && c.reviewStatus === null && c.reason !== null && RELEASABLE.includes(c.reason);

function statusText(c: Capture): { text: string; tone: "ok" | "off" | "paused" | "muted" } {
  if (c.reviewStatus === "released") return { text: "Released", tone: "ok" };
  if (c.reviewStatus === "rejected_by_staff") return { text: "Rejected by staff", tone: "off" };
  if (c.status === "verified") return { text: "Verified", tone: "ok" };
  if (c.status === "rejected") return { text: "Rejected on receipt", tone: "muted" };
  return { text: "Quarantined", tone: "paused" };
}

/** Labels of the organisation's devices by id, for the device column (ids when not resolvable). */
function useDeviceLabels(): Map<string, string> {
  const devices = useApi(async () => {
    const data = await ok(api.GET("/api/v1/staff/devices", { params: { query: { limit: 500 } } }));
    return new Map(data.devices.map((d) => [d.deviceId, d.label]));
  }, []);
  return devices.data ?? new Map<string, string>();
}

type Review = { capture: Capture; action: "release" | "reject" };
type Released = { clientSessionId: string; consents: number; withdrawalToken: string | undefined };

export function CapturesSection() {
  const canWrite = useCanWrite();
  const [filter, setFilter] = useState<CaptureFilter>("pending");
  const list = usePagedList(
    async (cursor) => {
      const { query } = CAPTURE_FILTERS.find((f) => f.value === filter)!;
      const data = await ok(
        api.GET("/api/v1/staff/offline/captures", { params: { query: { cursor, ...query } } }),
      );
      return { items: data.captures, nextCursor: data.nextCursor };
    },
    [filter],
  );
  const labels = useDeviceLabels();
  const [review, setReview] = useState<Review | null>(null);
  const [note, setNote] = useState("");
  const [noteError, setNoteError] = useState<unknown>(undefined);
  const [done, setDone] = useState<string | null>(null);
  const [released, setReleased] = useState<Released | null>(null);
  // 404 while the organisation's `offline_agent_capture` capability is off.
  const switchedOff = isSwitchedOff(list.error);

  const deviceName = (deviceId: string) => labels.get(deviceId) ?? deviceId;
  const open = (capture: Capture, action: Review["action"]) => {
    setNote("");
    setNoteError(undefined);
    setReview({ capture, action });
  };

  const columns: Column<Capture>[] = [
    {
      key: "session",
      header: "Client session",
      rowHeader: true,
      render: (c) => <code className="integrations-break">{c.clientSessionId}</code>,
    },
    { key: "received", header: "Received", render: (c) => <DateTime value={c.receivedAt} /> },
    {
      key: "captured",
      header: "Captured (device clock)",
      render: (c) => <DateTime value={c.capturedAtClient} />,
    },
    {
      key: "device",
      header: "Device",
      render: (c) =>
        labels.has(c.deviceId) ? (
          <span title={c.deviceId}>{deviceName(c.deviceId)}</span>
        ) : (
          <code className="integrations-break">{c.deviceId}</code>
        ),
    },
    {
      key: "reason",
      header: "Reason",
      render: (c) => (c.reason === null ? "—" : <span title={c.reason}>{REASON_LABELS[c.reason]}</span>),
    },
    {
      key: "status",
      header: "Status",
      render: (c) => {
        const { text, tone } = statusText(c);
        return (
          <>
            <span className={`integrations-state integrations-state-${tone}`}>{text}</span>
            {c.reviewedAt !== null ? (
              <span className="offline-sub">
                <DateTime value={c.reviewedAt} />
                {c.reviewNote ? `: ${c.reviewNote}` : null}
              </span>
            ) : null}
          </>
        );
      },
    },
  ];
  if (canWrite)
    columns.push({
      key: "actions",
      header: <span className="visually-hidden">Actions</span>,
      align: "end",
      render: (c) =>
        c.status === "quarantined" && c.reviewStatus === null ? (
          <span className="integrations-actions">
            {isReleasable(c) ? (
              <button
                type="button"
                className="button button-small"
                aria-label={`Release ${c.clientSessionId}`}
                onClick={() => open(c, "release")}
              >
                Release
              </button>
            ) : null}
            <button
              type="button"
              className="button button-small button-danger"
              aria-label={`Reject ${c.clientSessionId}`}
              onClick={() => open(c, "reject")}
            >
              Reject
            </button>
          </span>
        ) : null,
    });

  const confirm = async () => {
    if (!review) return;
    const { capture, action } = review;
    const path = { params: { path: { sessionId: capture.sessionId } }, body: { note: note.trim() } };
    const succeeded = await withFieldError(
      "note",
      async () => {
        if (action === "release") {
          const result = await ok(api.POST("/api/v1/staff/offline/captures/{sessionId}/release", path));
          setReleased({
            clientSessionId: capture.clientSessionId,
            consents: result.consentIds?.length ?? 0,
            withdrawalToken: result.withdrawalToken,
          });
          setDone(null);
        } else {
          await ok(api.POST("/api/v1/staff/offline/captures/{sessionId}/reject", path));
          setReleased(null);
          setDone(
            `Session ${capture.clientSessionId} is rejected: no consent was created; it stays stored as evidence.`,
          );
        }
      },
      setNoteError,
    );
    if (!succeeded) return;
    setReview(null);
    list.reload();
  };

  const reviewing = review?.capture;
  return (
    <section className="integrations-section" aria-labelledby="captures">
      <h2 id="captures">Captures to review</h2>
      <p className="integrations-intro">
        Sessions signed on enrolled devices and synced later. Guard holds a session in quarantine when its
        proof or timing failed. Release one whose signature held but whose device clock was off, or whose
        notice was republished meanwhile: its consents are created now. Reject any other you cannot vouch for.
      </p>
      {done ? <Notice tone="success">{done}</Notice> : null}
      {released ? <ReleasedNotice released={released} onDone={() => setReleased(null)} /> : null}
      {switchedOff ? (
        <CapabilityOff what="Offline capture" capability="offline_agent_capture" />
      ) : (
        <>
          {/* Nothing to wrap: the guard tells a viewer why the rows carry no review buttons. */}
          <WriteGuard>{null}</WriteGuard>
          <ShowFilter
            value={filter}
            onChange={setFilter}
            options={CAPTURE_FILTERS}
            label="Which capture sessions to show"
          />
          <PagedBody list={list} what="capture sessions">
            <DataTable
              caption="Capture sessions"
              captionHidden
              columns={columns}
              rows={list.items}
              rowKey={(c) => c.sessionId}
              empty={<p className="integrations-empty">No capture sessions to show.</p>}
            />
          </PagedBody>
        </>
      )}
      <ConfirmDialog
        open={review !== null}
        title={
          review?.action === "release"
            ? `Release the session ${reviewing?.clientSessionId ?? ""}?`
            : `Reject the session ${reviewing?.clientSessionId ?? ""}?`
        }
        confirmLabel={review?.action === "release" ? "Release session" : "Reject session"}
        danger={review?.action === "reject"}
        onCancel={() => setReview(null)}
        onConfirm={confirm}
      >
        {review?.action === "release" ? (
          <p>
            Its consents are created now, against the notice version the device signed, as if it had been
            verified on receipt. Hand the withdrawal code shown next to the principal.
          </p>
        ) : (
          <p>No consent is created; the session stays stored as evidence. A review cannot be undone.</p>
        )}
        {reviewing ? (
          <p className="offline-sub">
            {deviceName(reviewing.deviceId)},{" "}
            {reviewing.reason ? REASON_LABELS[reviewing.reason] : "no reason"}
          </p>
        ) : null}
        <NoteField
          value={note}
          onChange={setNote}
          error={noteError}
          hint="Why you vouch for it or refuse it. Kept with the session and in the audit trail."
        />
      </ConfirmDialog>
    </section>
  );
}

function ReleasedNotice({ released, onDone }: { released: Released; onDone: () => void }) {
  const { clientSessionId, consents, withdrawalToken } = released;
  return (
    <div className="notice notice-success offline-released" role="status">
      <p>
        Session {clientSessionId} is released:{" "}
        {consents === 1 ? "1 consent was" : `${consents} consents were`} created.
      </p>
      {withdrawalToken ? (
        <>
          <p>
            <strong>Withdrawal code for the principal, shown once.</strong> It is what lets them withdraw
            these consents; the dashboard cannot show it again.
          </p>
          <div className="secret-value">
            <code tabIndex={0} aria-label={`Withdrawal code for ${clientSessionId}`}>
              {withdrawalToken}
            </code>
            <CopyButton text={withdrawalToken} label="Copy withdrawal code" />
          </div>
        </>
      ) : null}
      <button type="button" className="button button-small" onClick={onDone}>
        {withdrawalToken ? "I have handed it over" : "Dismiss"}
      </button>
    </div>
  );
}
