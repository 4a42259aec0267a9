// Service API keys: the list (prefix, creator, last use, revoked), creating one (the full key is in
// the create answer only, so it is shown once here) and revoking one after a confirmation.
import { useState, type FormEvent } from "react";
import { api, ok, type Schemas } from "../../api/client.js";
import {
  ConfirmDialog,
  DataTable,
  DateTime,
  ErrorNotice,
  Field,
  Notice,
  SecretOnce,
  unclaimedError,
  useApi,
  useCanWrite,
  WriteGuard,
  type Column,
} from "../../ui/index.js";
import { PagedBody } from "./ListStatus.js";
import { usePagedList } from "./usePagedList.js";

type ApiKey = Schemas["ApiKeySummary"];
type CreatedKey = Schemas["CreatedApiKey"];

const FIELDS = ["name"] as const;

/** Staff id -> email, to say who created a key; the contract's list carries only the id. */
function useStaffEmails(): Map<string, string> {
  // Any role may list staff accounts. If the list fails the table shows the ids instead: the keys
  // themselves are still right, so that failure does not block the section.
  const accounts = useApi(
    () => ok(api.GET("/api/v1/staff/accounts", { params: { query: { limit: 500 } } })),
    [],
  );
  return new Map((accounts.data?.accounts ?? []).map((a) => [a.staffId, a.email]));
}

export function ApiKeysSection() {
  const canWrite = useCanWrite();
  const emails = useStaffEmails();
  const list = usePagedList(async (cursor) => {
    const data = await ok(api.GET("/api/v1/staff/api-keys", { params: { query: { cursor } } }));
    return { items: data.apiKeys, nextCursor: data.nextCursor };
  }, []);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [done, setDone] = useState<string | null>(null);

  const columns: Column<ApiKey>[] = [
    { key: "name", header: "Name", rowHeader: true, render: (k) => k.name },
    { key: "prefix", header: "Prefix", render: (k) => <code>{k.prefix}…</code> },
    { key: "created", header: "Created", render: (k) => <DateTime value={k.createdAt} /> },
    {
      key: "createdBy",
      header: "Created by",
      render: (k) =>
        k.createdBy === null ? "Outside the dashboard" : (emails.get(k.createdBy) ?? k.createdBy),
    },
    {
      key: "lastUsed",
      header: "Last used",
      render: (k) => (k.lastUsedAt === null ? "Never" : <DateTime value={k.lastUsedAt} />),
    },
    {
      key: "state",
      header: "State",
      render: (k) =>
        k.revokedAt === null ? (
          <span className="integrations-state integrations-state-ok">Active</span>
        ) : (
          <span className="integrations-state integrations-state-off">
            Revoked <DateTime value={k.revokedAt} />
          </span>
        ),
    },
  ];
  if (canWrite)
    columns.push({
      key: "actions",
      header: <span className="visually-hidden">Actions</span>,
      align: "end",
      render: (k) =>
        k.revokedAt === null ? (
          <button
            type="button"
            className="button button-small button-danger"
            aria-label={`Revoke ${k.name}`}
            onClick={() => setRevoking(k)}
          >
            Revoke
          </button>
        ) : null,
    });

  return (
    <section className="integrations-section" aria-labelledby="api-keys">
      <h2 id="api-keys">Service API keys</h2>
      <p className="integrations-intro">
        Your servers call Guard with a key, as <code>Authorization: Bearer gk_live_…</code>. Keep keys on
        servers: never ship one in a web page or an app.
      </p>
      {done ? <Notice tone="success">{done}</Notice> : null}
      {created ? (
        <SecretOnce
          label={`API key “${created.name}”`}
          secret={created.key}
          onDone={() => setCreated(null)}
        />
      ) : null}
      <WriteGuard>
        <CreateKeyForm
          onCreated={(key) => {
            setDone(null);
            setCreated(key);
            list.reload();
          }}
        />
      </WriteGuard>
      <PagedBody list={list} what="API keys">
        <DataTable
          caption="API keys"
          captionHidden
          columns={columns}
          rows={list.items}
          rowKey={(k) => k.apiKeyId}
          empty={<p className="integrations-empty">No API keys yet.</p>}
        />
      </PagedBody>
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke the key “${revoking?.name ?? ""}”?`}
        confirmLabel="Revoke key"
        danger
        onCancel={() => setRevoking(null)}
        onConfirm={async () => {
          if (!revoking) return;
          await ok(
            api.DELETE("/api/v1/staff/api-keys/{apiKeyId}", {
              params: { path: { apiKeyId: revoking.apiKeyId } },
            }),
          );
          setDone(`The key “${revoking.name}” is revoked: requests with it are now refused.`);
          setCreated((shown) => (shown?.apiKeyId === revoking.apiKeyId ? null : shown));
          setRevoking(null);
          list.reload();
        }}
      >
        <p>
          Every request made with <code>{revoking?.prefix}…</code> is refused from now on, and the principal
          tokens it brokered stop working. This cannot be undone: an integration using it needs a new key.
        </p>
      </ConfirmDialog>
    </section>
  );
}

function CreateKeyForm({ onCreated }: { onCreated: (key: CreatedKey) => void }) {
  const [name, setName] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const key = await ok(api.POST("/api/v1/staff/api-keys", { body: { name: name.trim() } }));
      setName("");
      onCreated(key);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="integrations-form" onSubmit={(e) => void submit(e)} aria-label="Create an API key">
      <Field
        label="Key name"
        name="name"
        error={error}
        hint="Which integration uses it, e.g. “Shop backend”."
      >
        <input value={name} onChange={(e) => setName(e.target.value)} maxLength={100} autoComplete="off" />
      </Field>
      <ErrorNotice error={unclaimedError(error, FIELDS)} title="The key was not created" />
      <button type="submit" className="button button-primary" disabled={busy} aria-busy={busy}>
        {busy ? "Creating…" : "Create API key"}
      </button>
    </form>
  );
}
