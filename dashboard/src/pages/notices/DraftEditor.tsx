// The draft editor: itemised purposes (purpose, the personal data it uses, data types, tracking)
// and, per language, the five texts publishing needs (title, body and the DPDP Rule 3 texts).
// Saving sends the whole draft in one PUT (it replaces the draft whole), so a retry is harmless.
import { useState, type FormEvent } from "react";
import type { Schemas } from "../../api/client.js";
import { ErrorNotice, Field, fieldError } from "../../ui/index.js";
import { DataTypesInput } from "./DataTypesInput.js";
import {
  emptyPurpose,
  emptyTexts,
  formFieldNames,
  purposeField,
  TEXT_FIELDS,
  TEXT_LABELS,
  textField,
  type DraftForm,
  type PurposeForm,
  type TextField,
} from "./draft-model.js";
import { errorAt, unclaimedBy } from "./field-errors.js";

type LanguageInfo = Schemas["NoticeLanguageInfo"];

export function languageName(code: string, languages: readonly LanguageInfo[]): string {
  const info = languages.find((l) => l.code === code);
  return info ? `${info.name} (${info.nativeName})` : code;
}

export function DraftEditor({
  form,
  onChange,
  languages,
  problems,
  readOnly,
  saving,
  dirty,
  error,
  onSave,
}: {
  form: DraftForm;
  onChange: (form: DraftForm) => void;
  /** The 23 notice languages (GET /api/v1/notice-languages). */
  languages: readonly LanguageInfo[];
  /** What still stops the saved draft from being published (field -> message). */
  problems: readonly Schemas["NoticeProblem"][];
  readOnly: boolean;
  saving: boolean;
  dirty: boolean;
  /** What the last save threw. */
  error: unknown;
  onSave: () => void;
}) {
  const [adding, setAdding] = useState("");
  const available = languages.filter((l) => !form.languages.includes(l.code));
  const addable = adding && available.some((l) => l.code === adding) ? adding : (available[0]?.code ?? "");

  const setPurpose = (index: number, patch: Partial<PurposeForm>) =>
    onChange({
      ...form,
      itemized: form.itemized.map((item, i) => (i === index ? { ...item, ...patch } : item)),
    });
  const setText = (language: string, field: TextField, value: string) =>
    onChange({
      ...form,
      content: {
        ...form.content,
        [language]: { ...(form.content[language] ?? emptyTexts()), [field]: value },
      },
    });
  const addLanguage = () => {
    if (!addable) return;
    onChange({
      ...form,
      languages: [...form.languages, addable],
      content: { ...form.content, [addable]: form.content[addable] ?? emptyTexts() },
    });
    setAdding("");
  };
  const removeLanguage = (code: string) => {
    const content = { ...form.content };
    delete content[code];
    onChange({ ...form, languages: form.languages.filter((l) => l !== code), content });
  };
  const needed = (name: string) =>
    problems.some((p) => p.field === name) ? "Needed before publishing." : undefined;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSave();
  };

  return (
    <form className="draft-editor" onSubmit={submit} aria-label="Draft">
      <fieldset className="draft-fieldset" disabled={readOnly}>
        <legend className="visually-hidden">Draft content</legend>
        <section className="draft-section" aria-labelledby="draft-purposes">
          <h2 id="draft-purposes">Purposes and the personal data each uses</h2>
          {form.itemized.length === 0 ? (
            <p className="notices-muted">No purpose yet: publishing needs at least one.</p>
          ) : null}
          {form.itemized.map((item, index) => (
            <fieldset key={item.id} className="purpose-card">
              <legend>Purpose {index + 1}</legend>
              <Field label="Purpose" name={purposeField(index, "purpose")} error={error}>
                <input
                  value={item.purpose}
                  onChange={(event) => setPurpose(index, { purpose: event.target.value })}
                  autoComplete="off"
                />
              </Field>
              <Field
                label="Personal data it uses"
                name={purposeField(index, "personalDataDescription")}
                error={error}
              >
                <textarea
                  rows={2}
                  value={item.personalDataDescription}
                  onChange={(event) => setPurpose(index, { personalDataDescription: event.target.value })}
                />
              </Field>
              <DataTypesInput
                label={`Data types of purpose ${index + 1}`}
                values={item.dataTypes}
                onChange={(dataTypes) => setPurpose(index, { dataTypes })}
                error={errorAt(error, purposeField(index, "dataTypes"))}
                disabled={readOnly}
              />
              <Field
                label="Tracking or targeted advertising (DPDP s.9(3))"
                name={purposeField(index, "tracking")}
                error={error}
              >
                <select
                  value={item.tracking}
                  onChange={(event) =>
                    setPurpose(index, { tracking: event.target.value as PurposeForm["tracking"] })
                  }
                >
                  <option value="">Not declared (the purpose&apos;s label decides)</option>
                  <option value="yes">Yes: refused for a verified child</option>
                  <option value="no">No</option>
                </select>
              </Field>
              {readOnly ? null : (
                <button
                  type="button"
                  className="button button-small"
                  onClick={() => onChange({ ...form, itemized: form.itemized.filter((_, i) => i !== index) })}
                >
                  Remove purpose {index + 1}
                </button>
              )}
            </fieldset>
          ))}
          {readOnly ? null : (
            <button
              type="button"
              className="button"
              onClick={() => onChange({ ...form, itemized: [...form.itemized, emptyPurpose()] })}
            >
              Add a purpose
            </button>
          )}
        </section>

        <section className="draft-section" aria-labelledby="draft-languages">
          <h2 id="draft-languages">Texts per language</h2>
          {form.languages.length === 0 ? (
            <p className="notices-muted">No language yet: publishing needs at least one.</p>
          ) : null}
          {form.languages.map((code) => {
            const info = languages.find((l) => l.code === code);
            return (
              <fieldset
                key={code}
                className="language-card"
                lang={code}
                dir={info?.direction ?? "ltr"}
                aria-label={info?.name ?? code}
              >
                <legend lang="en" dir="ltr">
                  {languageName(code, languages)}
                </legend>
                {TEXT_FIELDS.map((field) => {
                  const name = textField(code, field);
                  return (
                    <Field
                      key={field}
                      label={<span lang="en">{TEXT_LABELS[field]}</span>}
                      name={name}
                      error={error}
                      hint={fieldError(error, name) ? undefined : needed(name)}
                    >
                      {field === "title" ? (
                        <input
                          value={form.content[code]?.[field] ?? ""}
                          onChange={(event) => setText(code, field, event.target.value)}
                          autoComplete="off"
                        />
                      ) : (
                        <textarea
                          rows={field === "body" ? 5 : 3}
                          value={form.content[code]?.[field] ?? ""}
                          onChange={(event) => setText(code, field, event.target.value)}
                        />
                      )}
                    </Field>
                  );
                })}
                {readOnly ? null : (
                  <button
                    type="button"
                    className="button button-small"
                    lang="en"
                    dir="ltr"
                    onClick={() => removeLanguage(code)}
                  >
                    Remove {info?.name ?? code}
                  </button>
                )}
              </fieldset>
            );
          })}
          {readOnly || available.length === 0 ? null : (
            <div className="language-add">
              <Field label="Add a language" name="add-language">
                <select value={addable} onChange={(event) => setAdding(event.target.value)}>
                  {available.map((l) => (
                    <option key={l.code} value={l.code}>
                      {l.name} ({l.nativeName})
                    </option>
                  ))}
                </select>
              </Field>
              <button type="button" className="button" onClick={addLanguage}>
                Add language
              </button>
            </div>
          )}
        </section>
      </fieldset>
      <ErrorNotice error={unclaimedBy(error, formFieldNames(form))} title="The draft was not saved" />
      {readOnly ? null : (
        <div className="draft-actions">
          <button type="submit" className="button button-primary" disabled={saving}>
            {saving ? "Saving…" : "Save draft"}
          </button>
          {dirty ? <span className="notices-muted">Unsaved changes</span> : null}
        </div>
      )}
    </form>
  );
}
