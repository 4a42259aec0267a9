// A purpose's personal-data types as removable chips: type one and press Enter (or Add).
import { useId, useState, type KeyboardEvent } from "react";

export function DataTypesInput({
  label,
  values,
  onChange,
  error,
  disabled,
}: {
  label: string;
  values: string[];
  onChange: (values: string[]) => void;
  /** The API's message when it names this list or one of its items. */
  error?: string | undefined;
  disabled?: boolean;
}) {
  const [text, setText] = useState("");
  const id = useId();
  const add = () => {
    const value = text.trim();
    if (value === "" || values.includes(value)) {
      setText("");
      return;
    }
    onChange([...values, value]);
    setText("");
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "Enter") {
      // Enter adds the chip instead of submitting the whole draft.
      event.preventDefault();
      add();
    }
  };
  return (
    <div className={error ? "field field-invalid" : "field"}>
      <label htmlFor={id}>{label}</label>
      <p className="field-hint" id={`${id}-hint`}>
        What consent to this purpose covers (for example email, phone). Press Enter to add one.
      </p>
      {values.length > 0 ? (
        <ul className="chips" aria-label={`${label}: added`}>
          {values.map((value) => (
            <li key={value} className="chip">
              <span>{value}</span>
              {disabled ? null : (
                <button
                  type="button"
                  className="chip-remove"
                  aria-label={`Remove ${value}`}
                  onClick={() => onChange(values.filter((v) => v !== value))}
                >
                  ×
                </button>
              )}
            </li>
          ))}
        </ul>
      ) : null}
      {disabled ? null : (
        <div className="chip-add">
          <input
            id={id}
            value={text}
            onChange={(event) => setText(event.target.value)}
            onKeyDown={onKeyDown}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? `${id}-hint ${id}-error` : `${id}-hint`}
            autoComplete="off"
          />
          <button type="button" className="button button-small" onClick={add}>
            Add<span className="visually-hidden"> {label.toLowerCase()}</span>
          </button>
        </div>
      )}
      {error ? (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}
