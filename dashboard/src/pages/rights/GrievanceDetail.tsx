// One grievance: its facts, the latest response, its history, and the response form offering only
// the statuses the state machine allows from the current one (state-machine.ts). One POST per
// response; the server stays the judge and its refusal is shown (and the grievance read again).
import { useState, type FormEvent } from "react";
import { api, ok } from "../../api/client.js";
import { ApiError } from "../../api/errors.js";
import type { PageProps } from "../../routes.js";
import { Link } from "../../router.js";
import {
  ConfirmDialog,
  DateTime,
  ErrorNotice,
  Field,
  Loading,
  Notice,
  Page,
  unclaimedError,
  useApi,
  WriteGuard,
} from "../../ui/index.js";
import { History } from "./History.js";
import { PrincipalLink } from "./PrincipalLink.js";
import "./rights.css";
import { GRIEVANCE_STATUS_LABELS } from "./labels.js";
import { Sla } from "./Sla.js";
import { grievanceNextStatuses, type GrievanceStatus } from "./state-machine.js";

type Move = Exclude<GrievanceStatus, "open">;
const FIELDS = ["response", "status"] as const;
const MOVE_LABELS: Record<Move, string> = {
  in_progress: "In progress (an interim response)",
  resolved: "Resolved (the final response)",
};

export default function GrievanceDetail({ params }: PageProps) {
  const grievanceId = params.grievanceId ?? "";
  const detail = useApi(
    () => ok(api.GET("/api/v1/staff/grievances/{grievanceId}", { params: { path: { grievanceId } } })),
    [grievanceId],
  );
  const [response, setResponse] = useState("");
  const [status, setStatus] = useState<Move | "">("");
  const [error, setError] = useState<unknown>(undefined);
  const [done, setDone] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);

  const grievance = detail.data?.grievance;
  const moves = grievance
    ? grievanceNextStatuses(grievance.status).filter((s): s is Move => s !== "open")
    : [];
  const target: Move | undefined = status !== "" && moves.includes(status) ? status : moves[0];

  const send = async (to: Move) => {
    setBusy(true);
    setError(undefined);
    setDone(null);
    try {
      await api.POST("/api/v1/staff/grievances/{grievanceId}/respond", {
        params: { path: { grievanceId } },
        body: { status: to, response },
      });
      setResponse("");
      setStatus("");
      setDone(`Response sent; the grievance is ${GRIEVANCE_STATUS_LABELS[to].toLowerCase()}.`);
      detail.reload();
    } catch (caught) {
      if (caught instanceof ApiError && caught.code === "INVALID_STATUS_TRANSITION") detail.reload();
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!target) return;
    // Resolving is final: confirm first. An interim response is sent at once.
    if (target === "resolved") setConfirming(true);
    else void send(target);
  };

  return (
    <Page
      title={grievance ? `Grievance: ${grievance.subject}` : "Grievance"}
      actions={<Link to="/rights/grievances">Back to the grievance queue</Link>}
    >
      {detail.loading && !detail.data ? <Loading label="Loading the grievance…" /> : null}
      <ErrorNotice error={detail.error} onRetry={detail.reload} />
      {done ? <Notice tone="success">{done}</Notice> : null}
      {grievance && detail.data ? (
        <>
          <dl className="rights-facts">
            <dt>Grievance id</dt>
            <dd>
              <code className="rights-id">{grievance.grievanceId}</code>
            </dd>
            <dt>Status</dt>
            <dd>
              <span className={`status-badge status-${grievance.status}`}>
                {GRIEVANCE_STATUS_LABELS[grievance.status]}
              </span>
            </dd>
            <dt>Principal</dt>
            <dd>
              <PrincipalLink externalId={grievance.externalId} />
            </dd>
            <dt>Filed</dt>
            <dd>
              <DateTime value={grievance.createdAt} />
            </dd>
            <dt>Deadline</dt>
            <dd>
              <DateTime value={grievance.dueAt} /> ·{" "}
              <Sla dueAt={grievance.dueAt} state={grievance.dueState} />
            </dd>
            <dt>Last response</dt>
            <dd>
              <DateTime value={grievance.respondedAt} />
            </dd>
            <dt>Resolved</dt>
            <dd>
              <DateTime value={grievance.closedAt} />
            </dd>
            <dt>Description</dt>
            <dd className="rights-text">{grievance.description}</dd>
            <dt>Response</dt>
            <dd className="rights-text">{grievance.response ?? "No response yet."}</dd>
          </dl>

          {moves.length > 0 ? (
            <section className="rights-section" aria-labelledby="respond-heading">
              <h2 id="respond-heading">Respond</h2>
              <WriteGuard>
                <form className="rights-action" onSubmit={submit} noValidate>
                  <Field label="Response to the principal" name="response" error={error}>
                    <textarea
                      rows={4}
                      maxLength={10000}
                      value={response}
                      onChange={(event) => setResponse(event.target.value)}
                    />
                  </Field>
                  <fieldset className="rights-choice">
                    <legend>New status</legend>
                    {moves.map((move) => (
                      <label key={move}>
                        <input
                          type="radio"
                          name="status"
                          value={move}
                          checked={target === move}
                          onChange={() => setStatus(move)}
                        />{" "}
                        {MOVE_LABELS[move]}
                      </label>
                    ))}
                  </fieldset>
                  <ErrorNotice error={unclaimedError(error, FIELDS)} title="The response was not sent" />
                  <button type="submit" className="button button-primary" disabled={busy}>
                    {busy ? "Sending…" : target === "resolved" ? "Send and resolve…" : "Send response"}
                  </button>
                </form>
              </WriteGuard>
            </section>
          ) : (
            <p className="rights-final">This grievance is resolved: that is final.</p>
          )}

          <History
            transitions={detail.data.transitions}
            statusLabel={(s) => GRIEVANCE_STATUS_LABELS[s as GrievanceStatus] ?? s}
          />

          <ConfirmDialog
            open={confirming}
            title="Resolve the grievance?"
            confirmLabel="Send and resolve"
            onConfirm={() => {
              setConfirming(false);
              return send("resolved");
            }}
            onCancel={() => setConfirming(false)}
          >
            <p>The response is sent and the grievance becomes resolved, which is final.</p>
          </ConfirmDialog>
        </>
      ) : null}
    </Page>
  );
}
