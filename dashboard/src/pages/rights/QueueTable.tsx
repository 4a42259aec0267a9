// The list part of a rights queue: its load state, the table (the queue's own first column, then the
// principal, status, filing time and deadline every rights item has), an empty state that says
// whether the filters hide items, and the pager.
import type { ReactNode } from "react";
import { DataTable, DateTime, EmptyState, ErrorNotice, Loading, type Column } from "../../ui/index.js";
import type { CaseItem } from "./DetailFacts.js";
import { Pager } from "./QueueControls.js";
import { Sla } from "./Sla.js";
import type { QueueList } from "./useQueueList.js";

export function QueueTable<
  Data extends { nextCursor: string | null },
  Status extends string,
  Item extends CaseItem & { status: Status },
>({
  queue: { list, filtered, onFirstPage },
  rows,
  noun,
  caption,
  first,
  statusLabels,
  rowKey,
  none,
}: {
  queue: QueueList<Data>;
  rows: (data: Data) => readonly Item[];
  /** The items in words, plural ("requests"), for the loading and the no-match messages. */
  noun: string;
  caption: string;
  /** The column that names the item and links to its page (row headers). */
  first: Column<Item>;
  statusLabels: Readonly<Record<Status, string>>;
  rowKey: (item: Item) => string;
  /** Shown when the queue has no items at all. */
  none: { title: string; text: ReactNode };
}) {
  const empty = filtered
    ? { title: `No ${noun} match these filters`, text: `Change or clear the filters to see other ${noun}.` }
    : none;
  const columns: Column<Item>[] = [
    first,
    { key: "principal", header: "Principal", render: (r) => r.externalId ?? "—" },
    { key: "status", header: "Status", render: (r) => statusLabels[r.status] },
    { key: "filed", header: "Filed", render: (r) => <DateTime value={r.createdAt} /> },
    { key: "due", header: "Deadline", render: (r) => <Sla dueAt={r.dueAt} state={r.dueState} /> },
  ];
  return (
    <>
      <ErrorNotice error={list.error} onRetry={list.reload} />
      {list.loading ? <Loading label={`Loading ${noun}…`} /> : null}
      {list.data && !list.loading ? (
        <>
          <DataTable
            caption={caption}
            captionHidden
            columns={columns}
            rows={rows(list.data)}
            rowKey={rowKey}
            empty={<EmptyState title={empty.title}>{empty.text}</EmptyState>}
          />
          <Pager nextCursor={list.data.nextCursor} onFirstPage={onFirstPage} />
        </>
      ) : null}
    </>
  );
}
