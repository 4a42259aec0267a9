// A labelled form control with its hint and the API's message for it. The child is the control
// (<input>, <select>, <textarea>); Field gives it an id, its `name`, aria-invalid and
// aria-describedby, so pages only write:
//
//   <Field label="Email" name="email" error={error}><input type="email" /></Field>
//
// where `error` is what the submit threw: Field shows its message only when the API's `field`
// names this control (fieldError). Show the rest with <ErrorNotice error={unclaimedError(error, names)} />.
import { cloneElement, isValidElement, useId, type ReactElement, type ReactNode } from "react";
import { fieldError } from "../api/errors.js";

export { fieldError, unclaimedError } from "../api/errors.js";

interface ControlProps {
  id?: string;
  name?: string;
  "aria-invalid"?: boolean;
  "aria-describedby"?: string;
}

export function Field({
  label,
  name,
  error,
  hint,
  children,
}: {
  label: ReactNode;
  /** The control's name, matched against the API error's `field`. */
  name: string;
  /** What the last submit threw (any error); shown only if it names this field. */
  error?: unknown;
  hint?: ReactNode;
  children: ReactElement<ControlProps>;
}) {
  const id = useId();
  const message = fieldError(error, name);
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = message ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
  const control = isValidElement(children)
    ? cloneElement(children, {
        id,
        name,
        "aria-invalid": message ? true : undefined,
        "aria-describedby": describedBy,
      })
    : children;
  return (
    <div className={message ? "field field-invalid" : "field"}>
      <label htmlFor={id}>{label}</label>
      {hint ? (
        <p className="field-hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      {control}
      {message ? (
        <p className="field-error" id={errorId}>
          {message}
        </p>
      ) : null}
    </div>
  );
}
