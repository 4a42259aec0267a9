// Loading, empty and error states: every page shows one of these instead of a blank area.
import type { ReactNode } from "react";
import { ApiError } from "../api/errors.js";

export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <div className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}

export function EmptyState({
  title,
  children,
  action,
}: {
  title: string;
  children?: ReactNode;
  action?: ReactNode;
}) {
  return (
    <div className="empty-state">
      <p className="empty-state-title">{title}</p>
      {children ? <div className="empty-state-body">{children}</div> : null}
      {action ? <div className="empty-state-action">{action}</div> : null}
    </div>
  );
}

/** What went wrong, in the API's words, with its code and request id for a bug report. */
export function ErrorNotice({
  error,
  title = "Something went wrong",
  onRetry,
}: {
  error: unknown;
  title?: string;
  onRetry?: () => void;
}) {
  if (!error) return null;
  const apiError = error instanceof ApiError ? error : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div className="notice notice-error" role="alert">
      <p className="notice-title">{title}</p>
      <p>{message}</p>
      {apiError ? (
        <p className="notice-meta">
          Code <code>{apiError.code}</code>
          {apiError.status ? <> · HTTP {apiError.status}</> : null}
          {apiError.requestId ? (
            <>
              {" "}
              · Request id <code>{apiError.requestId}</code>
            </>
          ) : null}
          {apiError.retryAfter !== undefined ? <> · Retry after {apiError.retryAfter} s</> : null}
        </p>
      ) : null}
      {onRetry ? (
        <button type="button" className="button" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

/** A success or information message, announced politely to screen readers. */
export function Notice({
  children,
  tone = "info",
}: {
  children: ReactNode;
  tone?: "info" | "success" | "warning";
}) {
  return (
    <div className={`notice notice-${tone}`} role="status">
      {children}
    </div>
  );
}
