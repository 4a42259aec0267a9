// One notice: its draft editor, the preview as the banner shows it, publishing (a new version),
// discarding the draft, archiving, and the version history. Every action is one API call; saving
// and publishing are safe to repeat (the same draft changes nothing; a repeated publish answers the
// published version).
import { useMemo, useState } from "react";
import { api, ok, type Schemas } from "../../api/client.js";
import type { PageProps } from "../../routes.js";
import { Link } from "../../router.js";
import { asBannerSettings } from "../../ui/banner-preview/index.js";
import {
  ConfirmDialog,
  DateTime,
  ErrorNotice,
  Loading,
  Notice,
  Page,
  useApi,
  useCanWrite,
  WriteGuard,
} from "../../ui/index.js";
import { DraftEditor } from "./DraftEditor.js";
import { DraftPreview } from "./DraftPreview.js";
import { draftInput, formFrom, type DraftForm } from "./draft-model.js";
import { STATUS_LABELS } from "./notice-labels.js";
import { VersionHistory } from "./VersionHistory.js";
import "./notices.css";

type Detail = Schemas["StaffNoticeDetail"];
type Dialog = "publish" | "discard" | "archive" | undefined;

/** What the editor starts from: the draft, else the newest version (edited into the next one). */
function sourceOf(detail: Detail) {
  if (detail.draft) return detail.draft;
  const latest = detail.versions.at(-1);
  if (!latest) return undefined;
  return { itemized: latest.itemized, content: latest.content, languages: latest.languages ?? [] };
}

function PublishConsequence({ detail, nextVersion }: { detail: Detail; nextVersion: number }) {
  const current = detail.publishedVersion;
  if (current === null && detail.latestVersion === null) {
    return (
      <p>
        The draft becomes <strong>version 1</strong> and goes public: the banner and the public notice reads
        serve it, and consents are given against it. Published versions are never edited; later changes are
        published as new versions.
      </p>
    );
  }
  return (
    <>
      <p>
        The draft becomes <strong>version {nextVersion}</strong>.
        {current !== null ? (
          <>
            {" "}
            Version {current} becomes <em>superseded</em>: consents already given stay tied to version{" "}
            {current}, the exact text they were given against, and are not changed.
          </>
        ) : (
          <> The notice is archived: publishing makes it public again.</>
        )}
      </p>
      <p>
        A new version asks for consent again: the hosted banner shows itself again to visitors who decided on
        an earlier version, and new consents are given against version {nextVersion}. If the draft is
        identical to the published version, nothing changes.
      </p>
    </>
  );
}

export default function NoticeDetail({ params }: PageProps) {
  const noticeId = params.noticeId ?? "";
  const canWrite = useCanWrite();
  const notice = useApi(
    () => ok(api.GET("/api/v1/staff/notices/{noticeId}", { params: { path: { noticeId } } })),
    [noticeId],
  );
  const languages = useApi(() => ok(api.GET("/api/v1/notice-languages")), []);
  const settings = useApi(
    () => ok(api.GET("/api/v1/staff/banner-settings", { params: { query: { limit: 1 } } })),
    [],
  );

  const [form, setForm] = useState<DraftForm | undefined>(undefined);
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<unknown>(undefined);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [dialog, setDialog] = useState<Dialog>(undefined);
  const [previewWanted, setPreviewWanted] = useState(false);
  const [previewTick, setPreviewTick] = useState(0);
  const preview = useApi(
    () =>
      previewWanted
        ? ok(api.GET("/api/v1/staff/notices/{noticeId}/draft/preview", { params: { path: { noticeId } } }))
        : Promise.resolve(undefined),
    [noticeId, previewWanted, previewTick],
  );

  const detail = notice.data;
  const savedInput = useMemo(
    () => (detail ? JSON.stringify(draftInput(formFrom(sourceOf(detail)))) : ""),
    [detail],
  );
  // A (re)loaded notice resets the editor to what Guard holds, in the render that shows it, when
  // that text changed (a save, a discard, another notice). A reload bringing the same text (after
  // archiving or publishing) keeps what the user typed while it was on its way.
  const [formSource, setFormSource] = useState<string | undefined>(undefined);
  if (detail && savedInput !== formSource) {
    setFormSource(savedInput);
    setForm(formFrom(sourceOf(detail)));
  }
  const dirty = form !== undefined && JSON.stringify(draftInput(form)) !== savedInput;

  const save = async () => {
    if (!form) return;
    setSaving(true);
    setSaveError(undefined);
    setMessage(undefined);
    try {
      const draft = await ok(
        api.PUT("/api/v1/staff/notices/{noticeId}/draft", {
          params: { path: { noticeId } },
          body: draftInput(form),
        }),
      );
      setMessage(
        draft.publishable
          ? "Draft saved. It is complete and can be published."
          : `Draft saved. ${draft.problems.length} thing${draft.problems.length === 1 ? "" : "s"} still stop it from being published.`,
      );
      notice.reload();
      if (previewWanted) setPreviewTick((n) => n + 1);
    } catch (caught) {
      setSaveError(caught);
    } finally {
      setSaving(false);
    }
  };

  const publish = async () => {
    const result = await ok(
      api.POST("/api/v1/staff/notices/{noticeId}/publish", { params: { path: { noticeId } } }),
    );
    setDialog(undefined);
    setPreviewWanted(false);
    setMessage(
      result.created
        ? `Published version ${result.version}.`
        : `Nothing changed: version ${result.version} already has this content.`,
    );
    notice.reload();
  };
  const discard = async () => {
    await ok(api.DELETE("/api/v1/staff/notices/{noticeId}/draft", { params: { path: { noticeId } } }));
    setDialog(undefined);
    setPreviewWanted(false);
    setMessage("Draft discarded. Published versions are unchanged.");
    notice.reload();
  };
  const archive = async () => {
    const version = await ok(
      api.POST("/api/v1/staff/notices/{noticeId}/archive", { params: { path: { noticeId } } }),
    );
    setDialog(undefined);
    setMessage(`Version ${version.version} archived: it is no longer public.`);
    notice.reload();
  };

  if (!detail) {
    return (
      <Page title="Notice">
        <p>
          <Link to="/notices">All notices</Link>
        </p>
        {notice.loading ? <Loading label="Loading the notice…" /> : null}
        <ErrorNotice error={notice.error} onRetry={notice.reload} title="The notice could not be loaded" />
      </Page>
    );
  }

  const nextVersion = (detail.latestVersion ?? 0) + 1;
  const languageList = languages.data?.languages ?? [];
  const defaultSettings = asBannerSettings(
    settings.data?.bannerSettings.find((s) => s.scope === "default")?.bannerSettings,
  );

  return (
    <Page
      title={`Notice ${detail.key}`}
      intro={
        <>
          {STATUS_LABELS[detail.status]}
          {detail.publishedVersion !== null ? ` · current version v${detail.publishedVersion}` : ""}
          {detail.draft ? (
            <>
              {" "}
              · draft saved <DateTime value={detail.draft.updatedAt} />
            </>
          ) : (
            " · no draft"
          )}
        </>
      }
      actions={
        <Link to="/notices" className="button">
          All notices
        </Link>
      }
    >
      {message ? <Notice tone="success">{message}</Notice> : null}
      <ErrorNotice error={notice.error} onRetry={notice.reload} title="The notice could not be reloaded" />
      <ErrorNotice
        error={languages.error}
        onRetry={languages.reload}
        title="The language list could not be loaded"
      />

      <WriteGuard>{null}</WriteGuard>
      {!detail.draft && canWrite ? (
        <p className="notices-muted">
          No draft: the editor starts from the newest version. Saving creates a draft for the next version;
          published versions are never edited.
        </p>
      ) : null}

      {form ? (
        <DraftEditor
          form={form}
          onChange={setForm}
          languages={languageList}
          problems={detail.draft?.problems ?? []}
          readOnly={!canWrite}
          saving={saving}
          dirty={dirty}
          error={saveError}
          onSave={() => void save()}
        />
      ) : null}

      <div className="notice-actions">
        {detail.draft ? (
          <button
            type="button"
            className="button"
            onClick={() => setPreviewWanted(true)}
            disabled={previewWanted}
          >
            Preview draft
          </button>
        ) : null}
        {canWrite && detail.draft ? (
          <>
            <button type="button" className="button button-primary" onClick={() => setDialog("publish")}>
              Publish…
            </button>
            <button type="button" className="button" onClick={() => setDialog("discard")}>
              Discard draft…
            </button>
          </>
        ) : null}
        {canWrite && detail.status === "published" ? (
          <button type="button" className="button button-danger" onClick={() => setDialog("archive")}>
            Archive…
          </button>
        ) : null}
      </div>

      {previewWanted ? (
        <>
          {preview.loading ? <Loading label="Rendering the preview…" /> : null}
          <ErrorNotice
            error={preview.error}
            onRetry={preview.reload}
            title="The preview could not be loaded"
          />
          {preview.data ? (
            <DraftPreview preview={preview.data} settings={defaultSettings} stale={dirty} />
          ) : null}
        </>
      ) : null}

      <VersionHistory versions={detail.versions} />

      <ConfirmDialog
        open={dialog === "publish"}
        title={`Publish version ${nextVersion} of ${detail.key}?`}
        confirmLabel={`Publish version ${nextVersion}`}
        onConfirm={publish}
        onCancel={() => setDialog(undefined)}
      >
        {dirty ? <p>Unsaved changes in the editor are not published: save them first.</p> : null}
        <PublishConsequence detail={detail} nextVersion={nextVersion} />
      </ConfirmDialog>
      <ConfirmDialog
        open={dialog === "discard"}
        title="Discard the draft?"
        confirmLabel="Discard draft"
        danger
        onConfirm={discard}
        onCancel={() => setDialog(undefined)}
      >
        <p>The draft&apos;s texts and purposes are deleted. Published versions are not affected.</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={dialog === "archive"}
        title={`Archive ${detail.key}?`}
        confirmLabel="Archive notice"
        danger
        onConfirm={archive}
        onCancel={() => setDialog(undefined)}
      >
        <p>
          Version {detail.publishedVersion} becomes archived: public reads of this notice answer “not found”,
          the banner no longer shows it, and new consents against it are refused. Consents already given keep
          pointing at version {detail.publishedVersion}. Publishing a new draft makes the notice public again
          as a new version.
        </p>
      </ConfirmDialog>
    </Page>
  );
}
