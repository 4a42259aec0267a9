// The feedback strip of a DSR or grievance page: the first load's progress, a failed load (with
// "Try again"), and what the last successful write did.
import { ErrorNotice, Loading, Notice, type ApiState } from "../../ui/index.js";

export function DetailFeedback({
  detail,
  loadingLabel,
  done,
}: {
  detail: ApiState<unknown>;
  loadingLabel: string;
  done: string | null;
}) {
  return (
    <>
      {detail.loading && !detail.data ? <Loading label={loadingLabel} /> : null}
      <ErrorNotice error={detail.error} onRetry={detail.reload} />
      {done ? <Notice tone="success">{done}</Notice> : null}
    </>
  );
}
