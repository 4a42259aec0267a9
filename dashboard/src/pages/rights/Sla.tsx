// Where an item's statutory clock stands: the shared Countdown (words and colour) while it is open,
// and for closed items whether it was closed on time. The server's `dueState` counts an item as due
// soon once 80 % of its period has elapsed, earlier than the Countdown's last 24 hours, so that is
// said in words too when the Countdown alone would still read "Due in ...".
import type { Schemas } from "../../api/client.js";
import { Countdown, dueState, useNow } from "../../ui/index.js";
import { DUE_STATE_LABELS } from "./labels.js";

export function Sla({ dueAt, state }: { dueAt: number | undefined; state: Schemas["DueState"] | undefined }) {
  const now = useNow();
  if (dueAt === undefined) return <span>—</span>;
  if (state === "met" || state === "missed") {
    return <span className={`sla-closed sla-${state}`}>{DUE_STATE_LABELS[state]}</span>;
  }
  const early = state === "due_soon" && dueState(dueAt, now) === "ok";
  return (
    <span className="sla">
      <Countdown dueAt={dueAt} />
      {early ? <span className="sla-badge">Due soon: most of the period has elapsed</span> : null}
    </span>
  );
}
