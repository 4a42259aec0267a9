// One grievance: its facts, the latest response, its history, and the response form offering only
// the statuses the state machine allows from the current one (state-machine.ts). One POST per
// response; the server stays the judge and its refusal is shown (and the grievance read again).
import { useState, type FormEvent } from "react";
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
import { GRIEVANCE_STATUS_LABELS } from "./labels.js";
import { grievanceNextStatuses, type GrievanceStatus } from "./state-machine.js";
import { useDetailWrite } from "./useDetailWrite.js";

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
  const [confirming, setConfirming] = useState(false);
  const { error, done, busy, run } = useDetailWrite(detail.reload, () => {
    setResponse("");
    setStatus("");
  });

  const grievance = detail.data?.grievance;
  const moves = grievance
    ? grievanceNextStatuses(grievance.status).filter((s): s is Move => s !== "open")
    : [];
  const target: Move | undefined = status !== "" && moves.includes(status) ? status : moves[0];

  const send = (to: Move) =>
    run(async () => {
      await api.POST("/api/v1/staff/grievances/{grievanceId}/respond", {
        params: { path: { grievanceId } },
        body: { status: to, response },
      });
      return `Response sent; the grievance is ${GRIEVANCE_STATUS_LABELS[to].toLowerCase()}.`;
    });

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
      <DetailFeedback detail={detail} loadingLabel="Loading the grievance…" done={done} />
      {grievance && detail.data ? (
        <>
          <DetailFacts
            idLabel="Grievance id"
            id={grievance.grievanceId}
            item={grievance}
            statusLabel={GRIEVANCE_STATUS_LABELS[grievance.status]}
          >
            <Fact term="Last response">
              <DateTime value={grievance.respondedAt} />
            </Fact>
            <Fact term="Resolved">
              <DateTime value={grievance.closedAt} />
            </Fact>
            <Fact term="Description" text>
              {grievance.description}
            </Fact>
            <Fact term="Response" text>
              {grievance.response ?? "No response yet."}
            </Fact>
          </DetailFacts>

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

          <History transitions={detail.data.transitions} statusLabels={GRIEVANCE_STATUS_LABELS} />

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
