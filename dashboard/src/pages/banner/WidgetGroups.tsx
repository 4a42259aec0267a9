// Widget domain groups: the configurations of the embeddable widget script (its `?id=`; contract
// 1.6's GET /api/v1/widget/config): which registered domains a group serves and which notice it
// shows (else the default notice, key `default`). A group's own styling is set through the API
// (`bannerSettings`); a save here keeps it, since a save replaces the whole definition. Any role
// reads; admin and dpo create, change and delete.
import { useId, useState, type FormEvent } from "react";
import { api, ok, type Schemas } from "../../api/client.js";
import { fieldError } from "../../api/errors.js";
import {
  ConfirmDialog,
  DataTable,
  DateTime,
  ErrorNotice,
  Field,
  Notice,
  unclaimedError,
  useApi,
  useCanWrite,
  useIdempotencyKey,
  type Column,
} from "../../ui/index.js";
import { PagedBody } from "../integrations/ListStatus.js";
import { usePagedList } from "../integrations/usePagedList.js";
import "../integrations/integrations.css";

type DomainGroup = Schemas["DomainGroup"];
type NoticeSummary = Schemas["StaffNoticeSummary"];

const GROUP_FIELDS = ["name", "domains", "noticeId"] as const;

export function WidgetGroupsSection() {
  const canWrite = useCanWrite();
  const groups = usePagedList(async (cursor) => {
    const data = await ok(api.GET("/api/v1/staff/domain-groups", { params: { query: { cursor } } }));
    return { items: data.domainGroups, nextCursor: data.nextCursor };
  }, []);
  // What a group may name: the registered domains and the notices (at most a page of each: a
  // group is about a handful of sites).
  const domains = useApi(
    () => ok(api.GET("/api/v1/staff/domains", { params: { query: { limit: 500 } } })),
    [],
  );
  const notices = useApi(
    () => ok(api.GET("/api/v1/staff/notices", { params: { query: { limit: 500 } } })),
    [],
  );
  const [editing, setEditing] = useState<DomainGroup | "new" | null>(null);
  const [deleting, setDeleting] = useState<DomainGroup | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const noticeName = (noticeId: string | null) => {
    if (noticeId === null) return "The default notice";
    const notice = notices.data?.notices.find((n) => n.noticeId === noticeId);
    return notice ? `${notice.key} (${noticeId})` : noticeId;
  };

  const columns: Column<DomainGroup>[] = [
    {
      key: "name",
      header: "Group",
      rowHeader: true,
      render: (g) => (
        <>
          {g.name}
          <code className="integrations-break banner-group-id">?id={g.domainGroupId}</code>
        </>
      ),
    },
    {
      key: "domains",
      header: "Serves",
      render: (g) => (g.domains.length === 0 ? "No domain yet" : g.domains.join(", ")),
    },
    { key: "notice", header: "Notice", render: (g) => noticeName(g.noticeId) },
    {
      key: "styling",
      header: "Styling",
      render: (g) =>
        g.bannerSettings === null ? "The organisation's" : `Its own (configVersion ${g.configVersion})`,
    },
    { key: "updated", header: "Changed", render: (g) => <DateTime value={g.updatedAt} /> },
  ];
  if (canWrite)
    columns.push({
      key: "actions",
      header: <span className="visually-hidden">Actions</span>,
      align: "end",
      render: (g) => (
        <span className="integrations-actions">
          <button
            type="button"
            className="button button-small"
            aria-label={`Edit ${g.name}`}
            onClick={() => setEditing(g)}
          >
            Edit
          </button>
          <button
            type="button"
            className="button button-small button-danger"
            aria-label={`Delete ${g.name}`}
            onClick={() => setDeleting(g)}
          >
            Delete
          </button>
        </span>
      ),
    });

  return (
    <section className="integrations-section" aria-labelledby="widget-groups">
      <h2 id="widget-groups">Widget domain groups</h2>
      <p className="integrations-intro">
        For sites that embed the widget script instead of the hosted banner: a group&apos;s id is the
        script&apos;s <code>?id=</code>, and the widget answers on the registered domains the group serves,
        with the group&apos;s notice (else your default notice).
      </p>
      {done ? <Notice tone="success">{done}</Notice> : null}
      <ErrorNotice
        error={domains.error ?? notices.error}
        onRetry={() => {
          domains.reload();
          notices.reload();
        }}
        title="Registered domains or notices could not be loaded"
      />
      {canWrite && editing !== null ? (
        <GroupForm
          key={editing === "new" ? "new" : editing.domainGroupId}
          group={editing === "new" ? null : editing}
          registered={domains.data?.domains.map((d) => d.domain) ?? []}
          notices={notices.data?.notices ?? []}
          onCancel={() => setEditing(null)}
          onSaved={(message) => {
            setDone(message);
            setEditing(null);
            groups.reload();
          }}
        />
      ) : canWrite ? (
        <button
          type="button"
          className="button"
          onClick={() => {
            setDone(null);
            setEditing("new");
          }}
        >
          New widget group
        </button>
      ) : null}
      <PagedBody list={groups} what="widget domain groups">
        <DataTable
          caption="Widget domain groups"
          captionHidden
          columns={columns}
          rows={groups.items}
          rowKey={(g) => g.domainGroupId}
          empty={<p className="integrations-empty">No widget domain groups.</p>}
        />
      </PagedBody>
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete the widget group “${deleting?.name ?? ""}”?`}
        confirmLabel="Delete group"
        danger
        onCancel={() => setDeleting(null)}
        onConfirm={async () => {
          if (!deleting) return;
          await ok(
            api.DELETE("/api/v1/staff/domain-groups/{domainGroupId}", {
              params: { path: { domainGroupId: deleting.domainGroupId } },
            }),
          );
          setDone(`The widget group “${deleting.name}” is deleted.`);
          setDeleting(null);
          groups.reload();
        }}
      >
        <p>Pages embedding the widget with its id get no banner from then on. Consents already given stay.</p>
      </ConfirmDialog>
    </section>
  );
}

/** Creates a group (`group` null) or replaces one's name, domains and notice, keeping its styling. */
function GroupForm({
  group,
  registered,
  notices,
  onCancel,
  onSaved,
}: {
  group: DomainGroup | null;
  registered: string[];
  notices: NoticeSummary[];
  onCancel: () => void;
  onSaved: (message: string) => void;
}) {
  const [name, setName] = useState(group?.name ?? "");
  const [domains, setDomains] = useState<string[]>(group?.domains ?? []);
  const [noticeId, setNoticeId] = useState(group?.noticeId ?? "");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const idempotency = useIdempotencyKey();
  const domainsErrorId = useId();
  const domainsError = fieldError(error, "domains");
  // Domains the group serves that are no longer registered cannot be offered; the API would refuse
  // them, so they are shown to be dropped.
  const offered = [...new Set([...registered, ...domains])].sort();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    const body = {
      name: name.trim(),
      ...(domains.length > 0 ? { domains } : {}),
      ...(noticeId ? { noticeId } : {}),
      // A save replaces the whole definition: the group's own styling goes back as it is.
      ...(group?.bannerSettings ? { bannerSettings: group.bannerSettings } : {}),
    };
    try {
      const saved = group
        ? await ok(
            api.PUT("/api/v1/staff/domain-groups/{domainGroupId}", {
              params: { path: { domainGroupId: group.domainGroupId } },
              body,
            }),
          )
        : await ok(
            api.POST("/api/v1/staff/domain-groups", {
              body,
              headers: { "Idempotency-Key": idempotency.key },
            }),
          );
      onSaved(
        group
          ? `The widget group “${saved.name}” is saved.`
          : `The widget group “${saved.name}” is created: embed the widget with ?id=${saved.domainGroupId}.`,
      );
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="integrations-form"
      onSubmit={(e) => void submit(e)}
      aria-label={group ? `Change the widget group “${group.name}”` : "Create a widget group"}
    >
      <Field label="Name" name="name" error={error} hint="Unique in your organisation.">
        <input value={name} onChange={(e) => setName(e.target.value)} maxLength={100} />
      </Field>
      <fieldset
        className={domainsError ? "integrations-events-choice field-invalid" : "integrations-events-choice"}
        aria-describedby={domainsError ? domainsErrorId : undefined}
      >
        <legend>Domains it serves</legend>
        {offered.length === 0 ? (
          <p className="integrations-note">Register a domain on the Integrations page first.</p>
        ) : null}
        {offered.map((domain) => (
          <label key={domain} className="integrations-check">
            <input
              type="checkbox"
              checked={domains.includes(domain)}
              onChange={(e) =>
                setDomains((current) =>
                  e.target.checked ? [...current, domain] : current.filter((d) => d !== domain),
                )
              }
            />{" "}
            {domain}
            {registered.includes(domain) ? null : " (no longer registered: untick it)"}
          </label>
        ))}
        {domainsError ? (
          <p className="field-error" id={domainsErrorId}>
            {domainsError}
          </p>
        ) : null}
      </fieldset>
      <Field
        label="Notice"
        name="noticeId"
        error={error}
        hint="While it has no published version, the default notice applies."
      >
        <select value={noticeId} onChange={(e) => setNoticeId(e.target.value)}>
          <option value="">The default notice</option>
          {notices.map((n) => (
            <option key={n.noticeId} value={n.noticeId}>
              {n.key} ({n.status})
            </option>
          ))}
        </select>
      </Field>
      <ErrorNotice error={unclaimedError(error, GROUP_FIELDS)} title="The widget group was not saved" />
      <div className="integrations-actions">
        <button type="submit" className="button button-primary" disabled={busy} aria-busy={busy}>
          {busy ? "Saving…" : group ? "Save group" : "Create group"}
        </button>
        <button type="button" className="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}
