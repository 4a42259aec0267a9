// One DSR: its facts, the answer recorded, its history, and only the moves the state machine allows
// from its current status (state-machine.ts). Each action is one API call; the server stays the
// judge, and when it refuses a move (someone moved the request meanwhile) its message is shown and
// the request is read again.
import { useState } from "react";
import { api, ok } from "../../api/client.js";
import type { PageProps } from "../../routes.js";
import { Link } from "../../router.js";
import {
  ConfirmDialog,
  DateTime,
  ErrorNotice,
  Field,
  Page,
  unclaimedError,
  useApi,
  WriteGuard,
} from "../../ui/index.js";
import { DetailFacts, Fact } from "./DetailFacts.js";
import { DetailFeedback } from "./DetailFeedback.js";
import { History } from "./History.js";
import "./rights.css";
import { DSR_MOVE_LABELS, DSR_STATUS_LABELS, DSR_TYPE_LABELS } from "./labels.js";
import { ResponsePayload } from "./ResponsePayload.js";
import { dsrActions, type DsrStatus } from "./state-machine.js";
import { StatutoryDenial } from "./StatutoryDenial.js";
import { useDetailWrite } from "./useDetailWrite.js";

const FIELDS = ["reason", "responsePayload"] as const;
type Pending = { kind: "move"; to: DsrStatus } | { kind: "summary" };

export default function DsrDetail({ params }: PageProps) {
  const requestId = params.requestId ?? "";
  const detail = useApi(
    () => ok(api.GET("/api/v1/staff/dsr/{requestId}", { params: { path: { requestId } } })),
    [requestId],
  );
  const [reason, setReason] = useState("");
  const [answer, setAnswer] = useState("");
  const [confirm, setConfirm] = useState<Pending | null>(null);
  const { error, done, busy, run, succeeded } = useDetailWrite(detail.reload, () => {
    setReason("");
    setAnswer("");
  });

  /** One action as one API call; answers what happened, in words. */
  const perform = async (action: Pending): Promise<string> => {
    if (action.kind === "summary") {
      await api.POST("/api/v1/staff/dsr/{requestId}/summary", { params: { path: { requestId } } });
      return "The summary was generated and the request is completed.";
    }
    const final = action.to === "completed" || action.to === "rejected";
    await api.PATCH("/api/v1/staff/dsr/{requestId}", {
      params: { path: { requestId } },
      body: {
        status: action.to,
        ...(reason.trim() ? { reason } : {}),
        ...(final && answer.trim() ? { responsePayload: answer } : {}),
      },
    });
    return `The request is now ${DSR_STATUS_LABELS[action.to].toLowerCase()}.`;
  };

  const runNow = (action: Pending) => run(() => perform(action));

  // The dialog closes either way: a failure is shown in the form, next to the field it names.
  const runConfirmed = async () => {
    if (!confirm) return;
    const action = confirm;
    setConfirm(null);
    await runNow(action);
  };

  const data = detail.data;
  const request = data?.request;
  const title = request ? `${DSR_TYPE_LABELS[request.type]} request` : "Data subject request";
  const actions = request ? dsrActions(request) : undefined;
  const erasure = request?.type === "erasure";

  return (
    <Page title={title} actions={<Link to="/rights/dsr">Back to the DSR queue</Link>}>
      <DetailFeedback detail={detail} loadingLabel="Loading the request…" done={done} />
      {request && data ? (
        <>
          <DetailFacts
            idLabel="Request id"
            id={request.requestId}
            item={request}
            statusLabel={DSR_STATUS_LABELS[request.status]}
            lead={<Fact term="Type">{DSR_TYPE_LABELS[request.type]}</Fact>}
          >
            <Fact term="Closed">
              <DateTime value={request.closedAt} />
            </Fact>
            <Fact term="Details from the principal" text>
              {request.requestDetails || "—"}
            </Fact>
          </DetailFacts>

          <section className="rights-section" aria-labelledby="answer-heading">
            <h2 id="answer-heading">Answer</h2>
            <ResponsePayload value={request.responsePayload} />
          </section>

          {actions && (actions.moves.length > 0 || actions.generateSummary || actions.statutoryDenial) ? (
            <section className="rights-section" aria-labelledby="actions-heading">
              <h2 id="actions-heading">Actions</h2>
              <WriteGuard>
                {actions.moves.length > 0 ? (
                  <form
                    className="rights-action"
                    aria-label="Move the request"
                    onSubmit={(event) => event.preventDefault()}
                    noValidate
                  >
                    <Field label="Reason (kept in the history, optional)" name="reason" error={error}>
                      <textarea
                        rows={2}
                        maxLength={2000}
                        value={reason}
                        onChange={(e) => setReason(e.target.value)}
                      />
                    </Field>
                    {actions.moves.some((to) => to === "completed" || to === "rejected") ? (
                      <Field
                        label="Answer to the principal (optional)"
                        name="responsePayload"
                        error={error}
                        hint={
                          erasure
                            ? "Sent beside the erasure report when the request is completed."
                            : undefined
                        }
                      >
                        <textarea rows={3} value={answer} onChange={(e) => setAnswer(e.target.value)} />
                      </Field>
                    ) : null}
                    <ErrorNotice error={unclaimedError(error, FIELDS)} title="The request did not move" />
                    <div className="rights-buttons">
                      {actions.moves.map((to) => (
                        <button
                          key={to}
                          type="button"
                          disabled={busy}
                          className={
                            to === "rejected" || (to === "completed" && erasure)
                              ? "button button-danger"
                              : "button button-primary"
                          }
                          onClick={() =>
                            to === "completed" || to === "rejected"
                              ? setConfirm({ kind: "move", to })
                              : void runNow({ kind: "move", to })
                          }
                        >
                          {DSR_MOVE_LABELS[to]}
                          {to === "completed" || to === "rejected" ? "…" : ""}
                        </button>
                      ))}
                    </div>
                  </form>
                ) : null}
                {actions.generateSummary ? (
                  <div className="rights-action">
                    <h3>Summary</h3>
                    <p className="field-hint">
                      Guard builds the principal&apos;s summary from its records now, records it as the answer
                      and completes the request.
                    </p>
                    <button
                      type="button"
                      className="button button-primary"
                      onClick={() => setConfirm({ kind: "summary" })}
                    >
                      Generate summary…
                    </button>
                  </div>
                ) : null}
                {actions.statutoryDenial ? (
                  <StatutoryDenial requestId={request.requestId} onDone={succeeded} />
                ) : null}
              </WriteGuard>
            </section>
          ) : (
            <p className="rights-final">
              This request is {DSR_STATUS_LABELS[request.status].toLowerCase()}: that is final.
            </p>
          )}

          <History transitions={data.transitions} statusLabels={DSR_STATUS_LABELS} />

          <ConfirmDialog
            open={confirm !== null}
            title={confirmTitle(confirm, erasure)}
            confirmLabel={
              confirm?.kind === "summary"
                ? "Generate and complete"
                : confirm
                  ? DSR_MOVE_LABELS[confirm.to]
                  : ""
            }
            danger={confirm?.kind === "move" && (confirm.to === "rejected" || erasure)}
            onConfirm={runConfirmed}
            onCancel={() => setConfirm(null)}
          >
            <p>{confirmBody(confirm, erasure)}</p>
          </ConfirmDialog>
        </>
      ) : null}
    </Page>
  );
}

function confirmTitle(pending: Pending | null, erasure: boolean): string {
  if (!pending) return "";
  if (pending.kind === "summary") return "Generate the summary?";
  if (pending.to === "completed") return erasure ? "Complete the erasure?" : "Mark the request completed?";
  return "Reject the request?";
}

function confirmBody(pending: Pending | null, erasure: boolean): string {
  if (!pending) return "";
  if (pending.kind === "summary")
    return "The generated summary becomes the answer and the request is completed, which is final.";
  if (pending.to === "completed" && erasure)
    return "Guard withdraws the principal's consents, redacts their texts and pseudonymises their id. This cannot be undone.";
  return `The request becomes ${DSR_STATUS_LABELS[pending.to].toLowerCase()}, which is final.`;
}
