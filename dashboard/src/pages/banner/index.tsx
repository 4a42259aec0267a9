// Banner (issue 24, page 4): the organisation's default banner settings and each domain's or app's
// own, a form for the presentation settings with a live preview (the hosted banner's own view, with
// the organisation's published default notice), and the configVersion each save produces; below,
// the embeddable widget's domain groups (WidgetGroups.tsx).
import { useEffect, useMemo, useState } from "react";
import { api, ok, type Schemas } from "../../api/client.js";
import { asBannerSettings, BannerPreview } from "../../ui/banner-preview/index.js";
import {
  ConfirmDialog,
  DataTable,
  DateTime,
  EmptyState,
  ErrorNotice,
  Field,
  Loading,
  Notice,
  Page,
  useApi,
  useCanWrite,
  WriteGuard,
  type Column,
} from "../../ui/index.js";
import { loadDefaultNotice } from "./published-notice.js";
import { formFrom, settingsInput, type SettingsForm } from "./settings-model.js";
import { SettingsEditor } from "./SettingsEditor.js";
import { WidgetGroupsSection } from "./WidgetGroups.js";
import "./banner.css";

type ScopeSettings = Schemas["BannerScopeSettings"];
type Scope = { scope: "default" } | { scope: "domain"; domain: string } | { scope: "app"; appId: string };

const scopeKey = (s: Scope | ScopeSettings): string =>
  s.scope === "default"
    ? "default"
    : s.scope === "domain"
      ? `domain:${s.domain ?? ""}`
      : `app:${"appId" in s ? (s.appId ?? "") : ""}`;

const scopeName = (s: Scope | ScopeSettings): string =>
  s.scope === "default"
    ? "Organisation default"
    : s.scope === "domain"
      ? `Domain ${s.domain ?? ""}`
      : `App ${"appId" in s ? (s.appId ?? "") : ""}`;

function toScope(s: ScopeSettings): Scope {
  if (s.scope === "domain") return { scope: "domain", domain: s.domain ?? "" };
  if (s.scope === "app") return { scope: "app", appId: s.appId ?? "" };
  return { scope: "default" };
}

async function loadScopes(): Promise<ScopeSettings[]> {
  const all: ScopeSettings[] = [];
  let cursor: string | undefined;
  do {
    const page = await ok(
      api.GET("/api/v1/staff/banner-settings", {
        params: { query: { limit: 100, ...(cursor ? { cursor } : {}) } },
      }),
    );
    all.push(...page.bannerSettings);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return all;
}

/** Registered domains and apps without settings of their own: where an override can be added. */
async function loadTargets(): Promise<Scope[]> {
  const [domains, apps] = await Promise.all([
    ok(api.GET("/api/v1/staff/domains", { params: { query: { limit: 100 } } })),
    ok(api.GET("/api/v1/staff/apps", { params: { query: { limit: 100 } } })),
  ]);
  return [
    ...domains.domains
      .filter((d) => !d.hasOwnBannerSettings)
      .map((d): Scope => ({ scope: "domain", domain: d.domain })),
    ...apps.apps.filter((a) => !a.hasOwnBannerSettings).map((a): Scope => ({ scope: "app", appId: a.appId })),
  ];
}

async function saveScope(scope: Scope, form: SettingsForm): Promise<ScopeSettings> {
  const body = { bannerSettings: settingsInput(form) };
  if (scope.scope === "domain")
    return ok(
      api.PUT("/api/v1/staff/domains/{domain}/banner-settings", {
        params: { path: { domain: scope.domain } },
        body,
      }),
    );
  if (scope.scope === "app")
    return ok(
      api.PUT("/api/v1/staff/apps/{appId}/banner-settings", {
        params: { path: { appId: scope.appId } },
        body,
      }),
    );
  return ok(api.PUT("/api/v1/staff/banner-settings/default", { body }));
}

async function removeScope(scope: Scope): Promise<void> {
  if (scope.scope === "domain")
    await ok(
      api.DELETE("/api/v1/staff/domains/{domain}/banner-settings", {
        params: { path: { domain: scope.domain } },
      }),
    );
  else if (scope.scope === "app")
    await ok(
      api.DELETE("/api/v1/staff/apps/{appId}/banner-settings", { params: { path: { appId: scope.appId } } }),
    );
}

export default function BannerPage() {
  const canWrite = useCanWrite();
  const scopes = useApi(loadScopes, []);
  const targets = useApi(loadTargets, []);
  const notice = useApi(loadDefaultNotice, []);
  const languages = useApi(() => ok(api.GET("/api/v1/notice-languages")), []);

  const [selected, setSelected] = useState<Scope>({ scope: "default" });
  const [form, setForm] = useState<SettingsForm | undefined>(undefined);
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<unknown>(undefined);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [confirmRemove, setConfirmRemove] = useState(false);
  const [newTarget, setNewTarget] = useState("");

  const selectedKey = scopeKey(selected);
  const current = scopes.data?.find((s) => scopeKey(s) === selectedKey);
  const fallback = scopes.data?.find((s) => s.scope === "default");
  // A new override starts from the default's settings; an existing scope from its own.
  useEffect(() => {
    if (!scopes.data) return;
    setForm(formFrom((current ?? fallback)?.bannerSettings));
    // Only when the scope or what Guard holds changes, not on each keystroke.
  }, [scopes.data, selectedKey]);

  const previewSettings = useMemo(() => asBannerSettings(form ? settingsInput(form) : undefined), [form]);

  const choose = (scope: Scope) => {
    setSelected(scope);
    setSaveError(undefined);
    setMessage(undefined);
  };

  const save = async () => {
    if (!form) return;
    setSaving(true);
    setSaveError(undefined);
    setMessage(undefined);
    try {
      const saved = await saveScope(selected, form);
      const before = current?.configVersion;
      setMessage(
        before === saved.configVersion
          ? `No change: ${scopeName(selected)} already had these settings (configVersion ${saved.configVersion}).`
          : `Saved ${scopeName(selected)}: configVersion is now ${saved.configVersion}. A cosmetic change: visitors are not asked to consent again.`,
      );
      scopes.reload();
      targets.reload();
    } catch (caught) {
      setSaveError(caught);
    } finally {
      setSaving(false);
    }
  };

  const remove = async () => {
    await removeScope(selected);
    setConfirmRemove(false);
    setMessage(`${scopeName(selected)} follows the organisation default again.`);
    setSelected({ scope: "default" });
    scopes.reload();
    targets.reload();
  };

  const columns: Column<ScopeSettings>[] = [
    { key: "scope", header: "Applies to", rowHeader: true, render: (s) => scopeName(s) },
    { key: "version", header: "configVersion", align: "end", render: (s) => s.configVersion },
    { key: "updated", header: "Updated", render: (s) => <DateTime value={s.updatedAt} /> },
    {
      key: "edit",
      header: <span className="visually-hidden">Action</span>,
      render: (s) =>
        scopeKey(s) === scopeKey(selected) ? (
          <span className="banner-muted">Shown below</span>
        ) : (
          <button type="button" className="button button-small" onClick={() => choose(toScope(s))}>
            {canWrite ? "Edit" : "View"} <span className="visually-hidden">{scopeName(s)}</span>
          </button>
        ),
    },
  ];

  const isNew = selected.scope !== "default" && !current;
  const target = targets.data?.find((t) => scopeKey(t) === newTarget) ?? targets.data?.[0];

  return (
    <Page
      title="Banner"
      intro="How the hosted banner looks. Domains and apps without settings of their own follow the organisation default. A change raises configVersion; it never asks visitors to consent again."
    >
      {message ? <Notice tone="success">{message}</Notice> : null}
      {scopes.loading && !scopes.data ? <Loading label="Loading banner settings…" /> : null}
      <ErrorNotice
        error={scopes.error}
        onRetry={scopes.reload}
        title="The banner settings could not be loaded"
      />

      {scopes.data ? (
        <DataTable
          caption="Banner settings"
          columns={columns}
          rows={scopes.data}
          rowKey={scopeKey}
          empty={<EmptyState title="No banner settings yet" />}
        />
      ) : null}

      <WriteGuard>
        <ErrorNotice
          error={targets.error}
          onRetry={targets.reload}
          title="Registered domains and apps could not be loaded"
        />
        {targets.data && targets.data.length > 0 ? (
          <div className="override-add">
            <Field label="Give a registered domain or app its own settings" name="override-target">
              <select
                value={target ? scopeKey(target) : ""}
                onChange={(event) => setNewTarget(event.target.value)}
              >
                {targets.data.map((t) => (
                  <option key={scopeKey(t)} value={scopeKey(t)}>
                    {scopeName(t)}
                  </option>
                ))}
              </select>
            </Field>
            <button type="button" className="button" onClick={() => target && choose(target)}>
              Start from the default
            </button>
          </div>
        ) : null}
      </WriteGuard>

      <div className="banner-layout">
        <section aria-labelledby="banner-form-title" className="banner-form">
          <h2 id="banner-form-title">
            {scopeName(selected)}
            {current ? ` · configVersion ${current.configVersion}` : isNew ? " · not saved yet" : ""}
          </h2>
          {isNew ? (
            <p className="banner-muted">A new override, starting from the organisation default.</p>
          ) : null}
          {languages.error ? (
            <ErrorNotice
              error={languages.error}
              onRetry={languages.reload}
              title="The language list could not be loaded"
            />
          ) : null}
          {form ? (
            <SettingsEditor
              form={form}
              onChange={setForm}
              languages={languages.data?.languages ?? []}
              readOnly={!canWrite}
              saving={saving}
              error={saveError}
              onSave={() => void save()}
              saveLabel={isNew ? `Save settings for ${scopeName(selected)}` : "Save settings"}
            />
          ) : null}
          {canWrite && selected.scope !== "default" && current ? (
            <button type="button" className="button button-danger" onClick={() => setConfirmRemove(true)}>
              Remove {scopeName(selected)}&apos;s own settings…
            </button>
          ) : null}
          {isNew ? (
            <button type="button" className="button" onClick={() => choose({ scope: "default" })}>
              Cancel new override
            </button>
          ) : null}
        </section>

        <section aria-labelledby="banner-preview-title" className="banner-preview-column">
          <h2 id="banner-preview-title">Live preview</h2>
          {notice.loading && !notice.data ? <Loading label="Loading the published notice…" /> : null}
          <ErrorNotice
            error={notice.error}
            onRetry={notice.reload}
            title="The published notice could not be loaded"
          />
          {notice.data === null ? (
            <EmptyState title="No published notice to preview">
              The banner shows the organisation&apos;s published notice (key default, else the first
              published). Publish one on the Notices page to preview the banner here.
            </EmptyState>
          ) : null}
          {notice.data ? (
            <>
              <p className="banner-muted">
                Notice {notice.data.key}, version {notice.data.version}, with the settings as typed (unsaved
                changes included). Buttons here record nothing.
              </p>
              <BannerPreview notice={notice.data.notice} settings={previewSettings} />
            </>
          ) : null}
        </section>
      </div>

      <WidgetGroupsSection />

      <ConfirmDialog
        open={confirmRemove}
        title={`Remove ${scopeName(selected)}'s own settings?`}
        confirmLabel="Remove its settings"
        danger
        onConfirm={remove}
        onCancel={() => setConfirmRemove(false)}
      >
        <p>
          It follows the organisation default again. Its configVersion keeps going up (the default&apos;s is
          raised above it if needed), so it never shows a version it showed before.
        </p>
      </ConfirmDialog>
    </Page>
  );
}
