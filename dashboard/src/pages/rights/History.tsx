// The history of a DSR or grievance: every move of its state machine, oldest first, as the API
// returns it (creation is the move from nothing).
import type { Schemas } from "../../api/client.js";
import { DataTable, DateTime } from "../../ui/index.js";
import { ACTOR_LABELS } from "./labels.js";

// Numbered: two moves may share a time, a source and a target (interim grievance responses).
type Transition = Schemas["RightsTransition"] & { index: number };

export function History({
  transitions,
  statusLabels,
}: {
  transitions: readonly Schemas["RightsTransition"][];
  /** The words for the item's statuses; a status it does not name is shown as the API sent it. */
  statusLabels: Readonly<Record<string, string>>;
}) {
  const statusLabel = (status: string) => statusLabels[status] ?? status;
  return (
    <section className="rights-section" aria-labelledby="history-heading">
      <h2 id="history-heading">History</h2>
      <DataTable
        caption="History"
        captionHidden
        columns={[
          {
            key: "at",
            header: "When",
            render: (t: Transition) => <DateTime value={t.at} />,
            rowHeader: true,
          },
          {
            key: "move",
            header: "Move",
            render: (t) =>
              t.from === null
                ? `Filed as ${statusLabel(t.to)}`
                : `${statusLabel(t.from)} → ${statusLabel(t.to)}`,
          },
          {
            key: "who",
            header: "By",
            render: (t) => (
              <>
                {ACTOR_LABELS[t.actorKind]}
                {t.actorId ? <code className="rights-id"> {t.actorId}</code> : null}
              </>
            ),
          },
          { key: "reason", header: "Reason or response", render: (t) => t.reason ?? "—" },
        ]}
        rows={transitions.map((t, index) => ({ ...t, index }))}
        rowKey={(t) => String(t.index)}
        empty={<p>No moves recorded.</p>}
      />
    </section>
  );
}
