// A readable table: a caption (for screen readers, visible or not), column headers with scope, and
// a horizontally scrollable, keyboard-focusable wrapper for narrow screens.
import type { ReactNode } from "react";
import { EmptyState } from "./feedback.js";

export interface Column<T> {
  /** Stable key of the column. */
  key: string;
  header: ReactNode;
  render: (row: T) => ReactNode;
  align?: "start" | "end";
  /** A column that names the row (its cells are row headers). */
  rowHeader?: boolean;
}

export function DataTable<T>({
  caption,
  captionHidden = false,
  columns,
  rows,
  rowKey,
  empty,
}: {
  caption: string;
  captionHidden?: boolean;
  columns: Column<T>[];
  rows: readonly T[];
  rowKey: (row: T) => string;
  /** Shown instead of the table when there are no rows. */
  empty?: ReactNode;
}) {
  if (rows.length === 0) return <>{empty ?? <EmptyState title={`No ${caption.toLowerCase()} yet`} />}</>;
  return (
    <div className="table-wrap" role="region" aria-label={caption} tabIndex={0}>
      <table className="table">
        <caption className={captionHidden ? "visually-hidden" : undefined}>{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.key} scope="col" className={column.align === "end" ? "align-end" : undefined}>
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((column) => {
                const className = column.align === "end" ? "align-end" : undefined;
                return column.rowHeader ? (
                  <th key={column.key} scope="row" className={className}>
                    {column.render(row)}
                  </th>
                ) : (
                  <td key={column.key} className={className}>
                    {column.render(row)}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
