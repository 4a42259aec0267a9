// Notices (issue 24, page 3): every notice of the organisation with its status, current version,
// languages and last change, and creating a notice (its key; the texts are written in its draft).
import { useState, type FormEvent } from "react";
import { api, ok, type Schemas } from "../../api/client.js";
import { Link, navigate } from "../../router.js";
import {
  DataTable,
  DateTime,
  ErrorNotice,
  Field,
  Loading,
  Page,
  unclaimedError,
  useApi,
  useIdempotencyKey,
  WriteGuard,
  type Column,
} from "../../ui/index.js";
import { lastChange, STATUS_LABELS } from "./notice-labels.js";
import "./notices.css";

type Summary = Schemas["StaffNoticeSummary"];

const COLUMNS: Column<Summary>[] = [
  {
    key: "key",
    header: "Key",
    rowHeader: true,
    render: (n) => <Link to={`/notices/${encodeURIComponent(n.noticeId)}`}>{n.key}</Link>,
  },
  {
    key: "status",
    header: "Status",
    render: (n) => (
      <span className={`notice-status notice-status-${n.status}`}>
        {STATUS_LABELS[n.status]}
        {n.draft ? " · draft pending" : ""}
      </span>
    ),
  },
  {
    key: "version",
    header: "Current version",
    align: "end",
    render: (n) => (n.publishedVersion === null ? "—" : `v${n.publishedVersion}`),
  },
  {
    key: "languages",
    header: "Languages",
    render: (n) => n.versions.at(-1)?.languages.join(", ") || "—",
  },
  { key: "updated", header: "Updated", render: (n) => <DateTime value={lastChange(n)} /> },
];

async function loadAll(): Promise<Summary[]> {
  // Follow the pages: an organisation has a handful of notices, not thousands.
  const notices: Summary[] = [];
  let cursor: string | undefined;
  do {
    const page = await ok(
      api.GET("/api/v1/staff/notices", { params: { query: { limit: 100, ...(cursor ? { cursor } : {}) } } }),
    );
    notices.push(...page.notices);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return notices;
}

function CreateNotice() {
  const [key, setKey] = useState("");
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const idempotency = useIdempotencyKey();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const draft = await ok(
        api.POST("/api/v1/staff/notices", {
          body: { key },
          headers: { "Idempotency-Key": idempotency.key },
        }),
      );
      idempotency.renew();
      navigate(`/notices/${encodeURIComponent(draft.noticeId)}`);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="notice-create" onSubmit={(event) => void submit(event)} aria-label="Create a notice">
      <Field
        label="New notice key"
        name="key"
        error={error}
        hint="Lowercase letters, digits and hyphens. The key default makes it the organisation's default notice."
      >
        <input
          value={key}
          onChange={(event) => {
            setKey(event.target.value);
            idempotency.renew();
          }}
          required
          autoComplete="off"
        />
      </Field>
      <button type="submit" className="button button-primary" disabled={busy}>
        {busy ? "Creating…" : "Create notice"}
      </button>
      <ErrorNotice error={unclaimedError(error, ["key"])} title="The notice was not created" />
    </form>
  );
}

export default function NoticesPage() {
  const notices = useApi(loadAll, []);
  return (
    <Page
      title="Notices"
      intro="Privacy notices (DPDP Rule 3) in up to 23 languages. Edit a draft, preview it as the banner shows it, then publish it as a new version."
    >
      <WriteGuard>
        <CreateNotice />
      </WriteGuard>
      {notices.loading && !notices.data ? <Loading label="Loading notices…" /> : null}
      <ErrorNotice error={notices.error} onRetry={notices.reload} title="The notices could not be loaded" />
      {notices.data ? (
        <DataTable
          caption="Notices"
          columns={COLUMNS}
          rows={notices.data}
          rowKey={(n) => n.noticeId}
          empty={
            <div className="empty-state">
              <p className="empty-state-title">No notices yet</p>
              <p>Create one above (key default for the notice the banner shows by default).</p>
            </div>
          }
        />
      ) : null}
    </Page>
  );
}
