// Registered web domains and native app ids: where the banner and widget may be used. Registering
// is a PUT of the name (idempotent, so a retried submit is harmless); removing asks first, because
// the banner stops showing there at once.
import { useState, type FormEvent } from "react";
import { api, ok, type Schemas } from "../../api/client.js";
import {
  ConfirmDialog,
  DataTable,
  DateTime,
  ErrorNotice,
  Field,
  Notice,
  unclaimedError,
  useCanWrite,
  WriteGuard,
  type Column,
} from "../../ui/index.js";
import { PagedBody } from "./ListStatus.js";
import { usePagedList, type PagedList } from "./usePagedList.js";

type Domain = Schemas["RegisteredDomain"];
type App = Schemas["RegisteredApp"];

export function useRegisteredDomains(): PagedList<Domain> {
  return usePagedList(async (cursor) => {
    const data = await ok(api.GET("/api/v1/staff/domains", { params: { query: { cursor } } }));
    return { items: data.domains, nextCursor: data.nextCursor };
  }, []);
}

/** The bits a domain and an app section differ in. */
interface Kind<T> {
  id: "domains" | "apps";
  title: string;
  intro: string;
  /** The form field; also the `field` the API names in its errors (the path parameter). */
  field: "domain" | "appId";
  label: string;
  hint: string;
  noun: string;
  name: (row: T) => string;
  register: (name: string) => Promise<unknown>;
  remove: (name: string) => Promise<{ removed: boolean }>;
  removeWarning: string;
  extraColumns: Column<T>[];
}

const DOMAIN_KIND: Kind<Domain> = {
  id: "domains",
  title: "Registered domains",
  intro: "The banner and the rights widget work only on these exact hostnames.",
  field: "domain",
  label: "Domain",
  hint: "A hostname such as shop.example.com: no https://, port or path.",
  noun: "domain",
  name: (d) => d.domain,
  register: (domain) => ok(api.PUT("/api/v1/staff/domains/{domain}", { params: { path: { domain } } })),
  remove: (domain) => ok(api.DELETE("/api/v1/staff/domains/{domain}", { params: { path: { domain } } })),
  removeWarning:
    "The banner stops showing on it at once, its own banner settings are deleted and it leaves every domain group.",
  extraColumns: [
    {
      key: "groups",
      header: "Domain groups",
      align: "end",
      render: (d) => d.domainGroupIds.length,
    },
    {
      key: "own",
      header: "Own banner settings",
      render: (d) => (d.hasOwnBannerSettings ? "Yes" : "No (default)"),
    },
  ],
};

const APP_KIND: Kind<App> = {
  id: "apps",
  title: "Registered apps",
  intro: "Native apps (bundle id or package name, matched exactly, case-sensitive) that may show the banner.",
  field: "appId",
  label: "App id",
  hint: "For example com.example.health.",
  noun: "app",
  name: (a) => a.appId,
  register: (appId) => ok(api.PUT("/api/v1/staff/apps/{appId}", { params: { path: { appId } } })),
  remove: (appId) => ok(api.DELETE("/api/v1/staff/apps/{appId}", { params: { path: { appId } } })),
  removeWarning:
    "The app's banner configuration then answers “not found” and its own banner settings are deleted.",
  extraColumns: [
    {
      key: "own",
      header: "Own banner settings",
      render: (a) => (a.hasOwnBannerSettings ? "Yes" : "No (default)"),
    },
  ],
};

export function DomainsSection({ list }: { list: PagedList<Domain> }) {
  return <RegisteredSection kind={DOMAIN_KIND} list={list} />;
}

export function AppsSection() {
  const list = usePagedList(async (cursor) => {
    const data = await ok(api.GET("/api/v1/staff/apps", { params: { query: { cursor } } }));
    return { items: data.apps, nextCursor: data.nextCursor };
  }, []);
  return <RegisteredSection kind={APP_KIND} list={list} />;
}

function RegisteredSection<T extends { createdAt: number }>({
  kind,
  list,
}: {
  kind: Kind<T>;
  list: PagedList<T>;
}) {
  const canWrite = useCanWrite();
  const [removing, setRemoving] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);

  const columns: Column<T>[] = [
    { key: "name", header: kind.label, rowHeader: true, render: (row) => <code>{kind.name(row)}</code> },
    { key: "created", header: "Registered", render: (row) => <DateTime value={row.createdAt} /> },
    ...kind.extraColumns,
  ];
  if (canWrite)
    columns.push({
      key: "actions",
      header: <span className="visually-hidden">Actions</span>,
      align: "end",
      render: (row) => (
        <button
          type="button"
          className="button button-small button-danger"
          aria-label={`Remove ${kind.name(row)}`}
          onClick={() => setRemoving(kind.name(row))}
        >
          Remove
        </button>
      ),
    });

  return (
    <section className="integrations-section" aria-labelledby={kind.id}>
      <h2 id={kind.id}>{kind.title}</h2>
      <p className="integrations-intro">{kind.intro}</p>
      {done ? <Notice tone="success">{done}</Notice> : null}
      <WriteGuard>
        <RegisterForm
          kind={kind}
          onRegistered={(name) => {
            setDone(`${name} is registered.`);
            list.reload();
          }}
        />
      </WriteGuard>
      <PagedBody list={list} what={`registered ${kind.noun}s`}>
        <DataTable
          caption={`${kind.noun === "app" ? "App" : "Domain"} list`}
          captionHidden
          columns={columns}
          rows={list.items}
          rowKey={kind.name}
          empty={<p className="integrations-empty">No {kind.noun}s registered yet.</p>}
        />
      </PagedBody>
      <ConfirmDialog
        open={removing !== null}
        title={`Remove the ${kind.noun} ${removing ?? ""}?`}
        confirmLabel={`Remove ${kind.noun}`}
        danger
        onCancel={() => setRemoving(null)}
        onConfirm={async () => {
          if (removing === null) return;
          const { removed } = await kind.remove(removing);
          setDone(removed ? `${removing} is removed.` : `${removing} was not registered (any more).`);
          setRemoving(null);
          list.reload();
        }}
      >
        <p>{kind.removeWarning}</p>
      </ConfirmDialog>
    </section>
  );
}

function RegisterForm<T>({ kind, onRegistered }: { kind: Kind<T>; onRegistered: (name: string) => void }) {
  const [value, setValue] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const name = value.trim();
    setBusy(true);
    setError(undefined);
    try {
      await kind.register(name);
      setValue("");
      onRegistered(name);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="integrations-form integrations-form-inline"
      onSubmit={(e) => void submit(e)}
      aria-label={`Register ${kind.noun === "app" ? "an app" : "a domain"}`}
    >
      <Field label={kind.label} name={kind.field} error={error} hint={kind.hint}>
        <input
          value={value}
          onChange={(e) => setValue(e.target.value)}
          required
          autoComplete="off"
          spellCheck={false}
        />
      </Field>
      <ErrorNotice
        error={unclaimedError(error, [kind.field])}
        title={`The ${kind.noun} was not registered`}
      />
      <button type="submit" className="button button-primary" disabled={busy} aria-busy={busy}>
        {busy ? "Registering…" : `Register ${kind.noun}`}
      </button>
    </form>
  );
}
