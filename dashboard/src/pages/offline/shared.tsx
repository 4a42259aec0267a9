// What the three sections share: how a switched-off capability answers (404 from the section's
// list route) and the note that says so, and the note field of their confirmation dialogs (whose
// writes run through the API client's withFieldError("note", …)).
import { ApiError } from "../../api/errors.js";
import { Field, Notice } from "../../ui/index.js";

/** A section's list answered 404: its capability is off (the routes answer as if absent). */
export const isSwitchedOff = (error: unknown): boolean => error instanceof ApiError && error.status === 404;

export function CapabilityOff({ what, capability }: { what: string; capability: string }) {
  return (
    <Notice tone="info">
      {what} is switched off for this organisation (capability <code>{capability}</code>). An admin can switch
      it on on the Organisation page.
    </Notice>
  );
}

/**
 * The note a review or close takes (required by the contract, kept on the audit chain). A note the
 * API refuses is shown at the field; `error` is whatever the last attempt threw.
 */
export function NoteField({
  value,
  onChange,
  error,
  hint,
}: {
  value: string;
  onChange: (value: string) => void;
  error: unknown;
  hint: string;
}) {
  return (
    <Field label="Note" name="note" error={error} hint={hint}>
      <textarea value={value} onChange={(e) => onChange(e.target.value)} maxLength={500} rows={2} />
    </Field>
  );
}
