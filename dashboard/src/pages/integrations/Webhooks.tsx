// Webhook endpoints: the list, registering one (its signing secret is in the create answer only, so
// it is shown once here), disabling / enabling, deleting after a confirmation, and the chosen
// endpoint's deliveries.
import { useEffect, useId, useState, type FormEvent } from "react";
import { api, ok, type Schemas } from "../../api/client.js";
import {
  ConfirmDialog,
  DataTable,
  DateTime,
  ErrorNotice,
  Field,
  fieldError,
  Notice,
  SecretOnce,
  unclaimedError,
  useCanWrite,
  WriteGuard,
  type Column,
} from "../../ui/index.js";
import { Deliveries } from "./Deliveries.js";
import { WEBHOOK_EVENTS, type WebhookEventType } from "./events.js";
import { PagedBody } from "./ListStatus.js";
import { usePagedList } from "./usePagedList.js";

type Endpoint = Schemas["WebhookEndpoint"];
type CreatedEndpoint = Schemas["CreatedWebhookEndpoint"];

const FIELDS = ["url", "events"] as const;

export function WebhooksSection() {
  const canWrite = useCanWrite();
  const [includeDeleted, setIncludeDeleted] = useState(false);
  const list = usePagedList(
    async (cursor) => {
      const data = await ok(
        api.GET("/api/v1/staff/webhooks", { params: { query: { cursor, includeDeleted } } }),
      );
      return { items: data.endpoints, nextCursor: data.nextCursor };
    },
    [includeDeleted],
  );
  const [created, setCreated] = useState<CreatedEndpoint | null>(null);
  const [deleting, setDeleting] = useState<Endpoint | null>(null);
  // The endpoint whose deliveries are open, by id: read from the list, so a change to it (disabled,
  // deleted) reaches its deliveries view, which then reloads (its key includes the change: the test clock may not move, so updatedAt alone is not enough).
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const selected = list.items.find((e) => e.endpointId === selectedId) ?? null;
  const selectedGone = selectedId !== null && selected === null && list.loaded && !list.loading;
  useEffect(() => {
    // Deleted while hidden from the list: close its view rather than reopen it when it is listed again.
    if (selectedGone) setSelectedId(null);
  }, [selectedGone]);
  const [done, setDone] = useState<string | null>(null);
  const [toggleError, setToggleError] = useState<unknown>(undefined);
  const [toggling, setToggling] = useState<string | null>(null);

  const setEnabled = async (endpoint: Endpoint, enabled: boolean) => {
    setToggling(endpoint.endpointId);
    setToggleError(undefined);
    setDone(null);
    try {
      await ok(
        api.PATCH("/api/v1/staff/webhooks/{endpointId}", {
          params: { path: { endpointId: endpoint.endpointId } },
          body: { enabled },
        }),
      );
      setDone(
        enabled
          ? `${endpoint.url} is enabled: queued deliveries resume.`
          : `${endpoint.url} is disabled: new events are not queued for it and queued deliveries wait.`,
      );
      list.reload();
    } catch (caught) {
      setToggleError(caught);
    } finally {
      setToggling(null);
    }
  };

  const columns: Column<Endpoint>[] = [
    {
      key: "url",
      header: "URL",
      rowHeader: true,
      render: (e) => <code className="integrations-break">{e.url}</code>,
    },
    {
      key: "events",
      header: "Events",
      render: (e) => <span className="integrations-events">{e.events.join(", ")}</span>,
    },
    {
      key: "state",
      header: "State",
      render: (e) =>
        e.deletedAt !== null ? (
          <span className="integrations-state integrations-state-off">
            Deleted <DateTime value={e.deletedAt} />
          </span>
        ) : e.enabled ? (
          <span className="integrations-state integrations-state-ok">Enabled</span>
        ) : (
          <span className="integrations-state integrations-state-paused">Disabled</span>
        ),
    },
    { key: "created", header: "Created", render: (e) => <DateTime value={e.createdAt} /> },
    {
      key: "actions",
      header: <span className="visually-hidden">Actions</span>,
      align: "end",
      render: (e) => (
        <span className="integrations-actions">
          <button
            type="button"
            className="button button-small"
            aria-label={`Deliveries to ${e.url}`}
            aria-pressed={selectedId === e.endpointId}
            onClick={() => setSelectedId(selectedId === e.endpointId ? null : e.endpointId)}
          >
            Deliveries
          </button>
          {canWrite && e.deletedAt === null ? (
            <>
              <button
                type="button"
                className="button button-small"
                aria-label={`${e.enabled ? "Disable" : "Enable"} ${e.url}`}
                disabled={toggling === e.endpointId}
                onClick={() => void setEnabled(e, !e.enabled)}
              >
                {e.enabled ? "Disable" : "Enable"}
              </button>
              <button
                type="button"
                className="button button-small button-danger"
                aria-label={`Delete ${e.url}`}
                onClick={() => setDeleting(e)}
              >
                Delete
              </button>
            </>
          ) : null}
        </span>
      ),
    },
  ];

  return (
    <section className="integrations-section" aria-labelledby="webhooks">
      <h2 id="webhooks">Webhook endpoints</h2>
      <p className="integrations-intro">
        Guard POSTs each event to the endpoints subscribed to it, signed with the endpoint&apos;s secret, and
        retries failed deliveries for about a day. Only events from the moment an endpoint is registered are
        sent.
      </p>
      {done ? <Notice tone="success">{done}</Notice> : null}
      <ErrorNotice error={toggleError} title="The endpoint was not changed" />
      {created ? (
        <SecretOnce
          label={`Signing secret for ${created.url}`}
          secret={created.secret}
          onDone={() => setCreated(null)}
        />
      ) : null}
      <WriteGuard>
        <CreateEndpointForm
          onCreated={(endpoint) => {
            setDone(null);
            setCreated(endpoint);
            list.reload();
          }}
        />
      </WriteGuard>
      <label className="integrations-check">
        <input
          type="checkbox"
          checked={includeDeleted}
          onChange={(e) => setIncludeDeleted(e.target.checked)}
        />{" "}
        Show deleted endpoints
      </label>
      <PagedBody list={list} what="webhook endpoints">
        <DataTable
          caption="Webhook endpoint list"
          captionHidden
          columns={columns}
          rows={list.items}
          rowKey={(e) => e.endpointId}
          empty={<p className="integrations-empty">No webhook endpoints yet.</p>}
        />
      </PagedBody>
      {selected ? (
        <Deliveries
          key={`${selected.endpointId}:${selected.updatedAt}:${String(selected.enabled)}:${selected.deletedAt ?? ""}`}
          endpoint={selected}
          onClose={() => setSelectedId(null)}
        />
      ) : null}
      <ConfirmDialog
        open={deleting !== null}
        title="Delete this webhook endpoint?"
        confirmLabel="Delete endpoint"
        danger
        onCancel={() => setDeleting(null)}
        onConfirm={async () => {
          if (!deleting) return;
          await ok(
            api.DELETE("/api/v1/staff/webhooks/{endpointId}", {
              params: { path: { endpointId: deleting.endpointId } },
            }),
          );
          setDone(`${deleting.url} is deleted: it receives nothing from now on.`);
          setDeleting(null);
          list.reload();
        }}
      >
        <p>
          <code className="integrations-break">{deleting?.url}</code> stops receiving events at once and its
          queued deliveries are cancelled. Its past deliveries stay readable. To pause it instead, disable it.
        </p>
      </ConfirmDialog>
    </section>
  );
}

function CreateEndpointForm({ onCreated }: { onCreated: (endpoint: CreatedEndpoint) => void }) {
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<WebhookEventType[]>(["consent.given", "consent.withdrawn"]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const eventsErrorId = useId();
  const eventsError = fieldError(error, "events");

  const toggle = (event: WebhookEventType, on: boolean) =>
    setEvents((current) => (on ? [...current, event] : current.filter((e) => e !== event)));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      // In the contract's order, whatever order the boxes were ticked in.
      const chosen = WEBHOOK_EVENTS.filter((e) => events.includes(e));
      const endpoint = await ok(
        api.POST("/api/v1/staff/webhooks", { body: { url: url.trim(), events: chosen } }),
      );
      setUrl("");
      onCreated(endpoint);
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
      aria-label="Register a webhook endpoint"
    >
      <Field
        label="Endpoint URL"
        name="url"
        error={error}
        hint="https://… (plain http only to localhost outside production)."
      >
        <input
          type="text"
          inputMode="url"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          autoComplete="off"
        />
      </Field>
      <fieldset
        className={eventsError ? "integrations-events-choice field-invalid" : "integrations-events-choice"}
        aria-describedby={eventsError ? eventsErrorId : undefined}
      >
        <legend>Events to send</legend>
        {WEBHOOK_EVENTS.map((name) => (
          <label key={name} className="integrations-check">
            <input
              type="checkbox"
              checked={events.includes(name)}
              onChange={(e) => toggle(name, e.target.checked)}
            />{" "}
            <code>{name}</code>
          </label>
        ))}
        {eventsError ? (
          <p className="field-error" id={eventsErrorId}>
            {eventsError}
          </p>
        ) : null}
      </fieldset>
      <ErrorNotice error={unclaimedError(error, FIELDS)} title="The endpoint was not registered" />
      <button type="submit" className="button button-primary" disabled={busy} aria-busy={busy}>
        {busy ? "Registering…" : "Register endpoint"}
      </button>
    </form>
  );
}
