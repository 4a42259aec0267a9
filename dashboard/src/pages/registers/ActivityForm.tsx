// The form of one processing activity, for both recording a new one and changing one: the five legal
// bases as a select, the destinations when the data crosses the border, and the recipients as rows.
// The API's message shows at the field it names (`recipients[1].country` belongs to Recipients).
import { useId, useState, type FormEvent } from "react";
import {
  LEGAL_BASES,
  RECIPIENT_ROLES,
  type ActivityForm,
  type LegalBasis,
  type RecipientRole,
} from "../../lib/registers.js";
import { ErrorNotice, Field, fieldError, unclaimedError } from "../../ui/index.js";

export const ACTIVITY_FIELDS = [
  "name",
  "purpose",
  "description",
  "dataCategories",
  "legalBasis",
  "recipients",
  "storageLocation",
  "crossesBorder",
  "destinationCountries",
] as const;

export function ActivityFormView({
  initial,
  label,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  initial: ActivityForm;
  label: string;
  submitLabel: string;
  /** Throws what the API threw; the form shows it. */
  onSubmit: (form: ActivityForm) => Promise<void>;
  onCancel?: () => void;
}) {
  const uid = useId();
  const [form, setForm] = useState<ActivityForm>(initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const set = <K extends keyof ActivityForm>(key: K, value: ActivityForm[K]) =>
    setForm((previous) => ({ ...previous, [key]: value }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await onSubmit(form);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  const recipientsError = fieldError(error, "recipients");
  return (
    <form className="registers-form" onSubmit={(e) => void submit(e)} aria-label={label}>
      <Field label="Name" name="name" error={error} hint="What the processing is, e.g. “Order fulfilment”.">
        <input value={form.name} onChange={(e) => set("name", e.target.value)} maxLength={200} />
      </Field>
      <Field
        label="Purpose"
        name="purpose"
        error={error}
        hint="Where the basis is consent, the consent purpose label."
      >
        <input value={form.purpose} onChange={(e) => set("purpose", e.target.value)} maxLength={200} />
      </Field>
      <Field label="Description (optional)" name="description" error={error}>
        <textarea
          value={form.description}
          onChange={(e) => set("description", e.target.value)}
          rows={2}
          maxLength={2000}
        />
      </Field>
      <Field
        label="Data categories"
        name="dataCategories"
        error={error}
        hint="Separated by commas, e.g. “name, email, delivery address”."
      >
        <input value={form.dataCategories} onChange={(e) => set("dataCategories", e.target.value)} />
      </Field>
      <Field label="Legal basis" name="legalBasis" error={error}>
        <select value={form.legalBasis} onChange={(e) => set("legalBasis", e.target.value as LegalBasis)}>
          {LEGAL_BASES.map(([value, text]) => (
            <option key={value} value={value}>
              {text}
            </option>
          ))}
        </select>
      </Field>
      <Field
        label="Storage location"
        name="storageLocation"
        error={error}
        hint="A country, a cloud region or a data centre."
      >
        <input
          value={form.storageLocation}
          onChange={(e) => set("storageLocation", e.target.value)}
          maxLength={200}
        />
      </Field>
      <div className="registers-check">
        <input
          id={`${uid}-crosses`}
          type="checkbox"
          checked={form.crossesBorder}
          onChange={(e) => set("crossesBorder", e.target.checked)}
        />
        <label htmlFor={`${uid}-crosses`}>Personal data is transferred outside India (s.16)</label>
      </div>
      {fieldError(error, "crossesBorder") ? (
        <p className="field-error">{fieldError(error, "crossesBorder")}</p>
      ) : null}
      {form.crossesBorder ? (
        <Field
          label="Destination countries"
          name="destinationCountries"
          error={error}
          hint="ISO country codes separated by commas, e.g. “US, SG”."
        >
          <input
            value={form.destinationCountries}
            onChange={(e) => set("destinationCountries", e.target.value)}
          />
        </Field>
      ) : fieldError(error, "destinationCountries") ? (
        <p className="field-error">{fieldError(error, "destinationCountries")}</p>
      ) : null}
      <fieldset className={recipientsError ? "field-invalid" : undefined}>
        <legend>Processors, recipients and joint fiduciaries</legend>
        {form.recipients.length === 0 ? <p className="registers-intro">None.</p> : null}
        {form.recipients.map((row, i) => {
          const update = (patch: Partial<typeof row>) =>
            set(
              "recipients",
              form.recipients.map((r, j) => (j === i ? { ...r, ...patch } : r)),
            );
          return (
            <div className="registers-recipient" key={i}>
              <div className="field">
                <label htmlFor={`${uid}-r${i}-name`}>Recipient {i + 1} name</label>
                <input
                  id={`${uid}-r${i}-name`}
                  value={row.name}
                  onChange={(e) => update({ name: e.target.value })}
                  maxLength={200}
                />
              </div>
              <div className="field">
                <label htmlFor={`${uid}-r${i}-role`}>Recipient {i + 1} role</label>
                <select
                  id={`${uid}-r${i}-role`}
                  value={row.role}
                  onChange={(e) => update({ role: e.target.value as RecipientRole })}
                >
                  {RECIPIENT_ROLES.map(([value, text]) => (
                    <option key={value} value={value}>
                      {text}
                    </option>
                  ))}
                </select>
              </div>
              <div className="field">
                <label htmlFor={`${uid}-r${i}-country`}>Recipient {i + 1} country</label>
                <input
                  id={`${uid}-r${i}-country`}
                  value={row.country}
                  onChange={(e) => update({ country: e.target.value })}
                  maxLength={2}
                  placeholder="IN"
                />
              </div>
              <button
                type="button"
                className="button button-small"
                onClick={() =>
                  set(
                    "recipients",
                    form.recipients.filter((_, j) => j !== i),
                  )
                }
              >
                Remove recipient {i + 1}
              </button>
            </div>
          );
        })}
        {recipientsError ? <p className="field-error">{recipientsError}</p> : null}
        <p>
          <button
            type="button"
            className="button button-small"
            onClick={() =>
              set("recipients", [...form.recipients, { name: "", role: "processor", country: "" }])
            }
          >
            Add a recipient
          </button>
        </p>
      </fieldset>
      <ErrorNotice error={unclaimedError(error, ACTIVITY_FIELDS)} title="The activity was not saved" />
      <div className="registers-actions">
        <button type="submit" className="button button-primary" disabled={busy} aria-busy={busy}>
          {busy ? "Saving…" : submitLabel}
        </button>
        {onCancel ? (
          <button type="button" className="button" onClick={onCancel} disabled={busy}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}
