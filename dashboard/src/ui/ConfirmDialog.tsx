// A modal confirmation on the native <dialog>: showModal() makes the rest of the page inert (focus
// stays inside), Escape cancels, and focus returns to what opened it. The confirm action may be
// async: the dialog stays open, busy, until it settles, and shows the API's error if it fails.
import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { ErrorNotice } from "./feedback.js";

export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  cancelLabel = "Cancel",
  danger = false,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  /** A destructive action: the confirm button is styled as such, and Cancel gets the initial focus. */
  danger?: boolean;
  onConfirm: () => Promise<void> | void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog || !open) return;
    setError(undefined);
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    (danger ? cancelRef.current : confirmRef.current)?.focus();
    return () => {
      // Close first: while the dialog is modal the rest of the page is inert and cannot take focus.
      if (dialog.open) dialog.close();
      opener?.focus();
    };
  }, [open, danger]);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog || !open) return;
    // Escape fires "cancel": keep the dialog open while an action is in flight.
    const onCancelEvent = (event: Event) => {
      event.preventDefault();
      if (!busy) onCancel();
    };
    dialog.addEventListener("cancel", onCancelEvent);
    return () => dialog.removeEventListener("cancel", onCancelEvent);
  }, [open, busy, onCancel]);

  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await onConfirm();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <dialog ref={ref} className="dialog" aria-labelledby={titleId}>
      <h2 id={titleId} className="dialog-title">
        {title}
      </h2>
      <div className="dialog-body">{children}</div>
      <ErrorNotice error={error} title="That did not work" />
      <div className="dialog-actions">
        <button type="button" className="button" ref={cancelRef} onClick={onCancel} disabled={busy}>
          {cancelLabel}
        </button>
        <button
          type="button"
          className={danger ? "button button-danger" : "button button-primary"}
          ref={confirmRef}
          onClick={() => void confirm()}
          disabled={busy}
          aria-busy={busy}
        >
          {busy ? "Working…" : confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
