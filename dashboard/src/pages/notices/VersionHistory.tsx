// Every published version of the notice, oldest first, with its lifecycle dates. Versions are
// evidence: they are never edited, only superseded or archived.
import type { Schemas } from "../../api/client.js";
import { DataTable, DateTime, type Column } from "../../ui/index.js";
import { VERSION_STATUS_LABELS } from "./notice-labels.js";

type Version = Schemas["StaffNoticeVersion"];

const COLUMNS: Column<Version>[] = [
  { key: "version", header: "Version", rowHeader: true, render: (v) => `v${v.version}` },
  { key: "status", header: "Status", render: (v) => VERSION_STATUS_LABELS[v.status] },
  {
    key: "languages",
    header: "Languages",
    render: (v) => (v.languages ?? Object.keys(v.content)).join(", "),
  },
  { key: "purposes", header: "Purposes", render: (v) => v.itemized.map((i) => i.purpose).join(", ") },
  { key: "published", header: "Published", render: (v) => <DateTime value={v.publishedAt} /> },
  {
    key: "ended",
    header: "Superseded / archived",
    render: (v) => <DateTime value={v.archivedAt ?? v.supersededAt} />,
  },
];

export function VersionHistory({ versions }: { versions: readonly Version[] }) {
  return (
    <section aria-labelledby="version-history">
      <h2 id="version-history">Version history</h2>
      <DataTable
        caption="Published versions"
        captionHidden
        columns={COLUMNS}
        rows={versions}
        rowKey={(v) => String(v.version)}
        empty={<p className="notices-muted">Not published yet: publishing the draft creates version 1.</p>}
      />
    </section>
  );
}
