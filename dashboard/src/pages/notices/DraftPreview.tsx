// The saved draft as principals would see it (GET …/draft/preview): what still blocks publishing,
// each language's missing texts, and the banner itself in any of the draft's languages, with the
// organisation's default banner settings.
import type { Schemas } from "../../api/client.js";
import { BannerPreview, type PreviewNotice } from "../../ui/banner-preview/index.js";
import { Notice } from "../../ui/index.js";
import type { BannerSettings } from "../../ui/banner-preview/index.js";

type Preview = Schemas["NoticePreview"];

/** The renderings as the notice the banner reads (one language each, in the draft's order). */
export function previewNotice(preview: Preview): PreviewNotice {
  const content: PreviewNotice["content"] = {};
  for (const r of preview.renderings) {
    content[r.language] = {
      ...(r.title === undefined ? {} : { title: r.title }),
      ...(r.body === undefined ? {} : { body: r.body }),
      ...(r.withdrawal === undefined ? {} : { withdrawal: r.withdrawal }),
      ...(r.rights === undefined ? {} : { rights: r.rights }),
      ...(r.complaint === undefined ? {} : { complaint: r.complaint }),
    };
  }
  return {
    itemized: preview.renderings[0]?.itemized ?? [],
    content,
    languages: preview.renderings.map((r) => r.language),
  };
}

export function DraftPreview({
  preview,
  settings,
  stale,
}: {
  preview: Preview;
  settings: BannerSettings;
  /** The editor has unsaved changes: the preview shows the saved draft. */
  stale: boolean;
}) {
  const incomplete = preview.renderings.filter((r) => r.missing.length > 0);
  return (
    <section className="draft-preview" aria-labelledby="draft-preview-title">
      <h2 id="draft-preview-title">Preview of the saved draft</h2>
      {stale ? (
        <Notice tone="warning">You have unsaved changes: save the draft to preview them.</Notice>
      ) : null}
      {preview.unchanged ? (
        <Notice>The published version {preview.nextVersion} already has exactly this content.</Notice>
      ) : (
        <p>Publishing would create version {preview.nextVersion}.</p>
      )}
      {preview.problems.length > 0 ? (
        <div className="notice notice-warning">
          <p className="notice-title">Not publishable yet</p>
          <ul>
            {preview.problems.map((p) => (
              <li key={p.field}>{p.message}</li>
            ))}
          </ul>
        </div>
      ) : (
        <Notice tone="success">
          Publishable: every language has all five texts and purposes are itemised.
        </Notice>
      )}
      {incomplete.length > 0 ? (
        <ul className="missing-list">
          {incomplete.map((r) => (
            <li key={r.language}>
              {r.name} ({r.nativeName}) lacks: {r.missing.join(", ")}
            </li>
          ))}
        </ul>
      ) : null}
      <BannerPreview
        notice={previewNotice(preview)}
        settings={settings}
        label="Banner preview of the draft"
      />
    </section>
  );
}
