// The shared UI every page builds on (see dashboard/README.md, "Adding a page").
export { ConfirmDialog } from "./ConfirmDialog.js";
export { CopyButton, SecretOnce } from "./CopyButton.js";
export { Countdown, DateTime, DUE_SOON_MS, dueState, useNow, type DueState } from "./Countdown.js";
export { DataTable, type Column } from "./DataTable.js";
export { EmptyState, ErrorNotice, Loading, Notice } from "./feedback.js";
export { Field, fieldError, unclaimedError } from "./Field.js";
export { Page } from "./Page.js";
export { useApi, type ApiState } from "./useApi.js";
export { useIdempotencyKey } from "./useIdempotencyKey.js";
export { useCanWrite, useIsAdmin, WriteGuard } from "./WriteGuard.js";
export { formatDate } from "../lib/time.js";
