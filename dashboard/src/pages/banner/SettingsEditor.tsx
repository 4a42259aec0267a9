// The banner's presentation settings: layout, position, theme, colours, font, radius, links,
// language and the banner's own texts per language. Every input's name is the API's field name,
// so Guard's validation message appears next to the input it is about.
import { useState, type FormEvent } from "react";
import type { Schemas } from "../../api/client.js";
import { ErrorNotice, Field, unclaimedError } from "../../ui/index.js";
import {
  COLOR_KEYS,
  COLOR_LABELS,
  emptyTexts,
  settingField,
  settingFieldNames,
  TEXT_KEYS,
  TEXT_LABELS,
  type ColorKey,
  type SettingsForm,
  type TextKey,
} from "./settings-model.js";

type LanguageInfo = Schemas["NoticeLanguageInfo"];
const SIX_DIGIT = /^#[0-9a-f]{6}$/i;

function ColorInput({
  name,
  value,
  onChange,
  error,
}: {
  name: ColorKey;
  value: string;
  onChange: (value: string) => void;
  error: unknown;
}) {
  return (
    <div className="color-field">
      <Field
        label={COLOR_LABELS[name]}
        name={settingField("colors", name)}
        error={error}
        hint="Hex, e.g. #1d4ed8"
      >
        <input
          value={value}
          onChange={(event) => onChange(event.target.value)}
          autoComplete="off"
          spellCheck={false}
        />
      </Field>
      {/* The picker only shows #rrggbb; other valid forms (#rgb, alpha) are typed. */}
      <input
        type="color"
        className="color-swatch"
        aria-label={`Pick ${COLOR_LABELS[name].toLowerCase()}`}
        value={SIX_DIGIT.test(value) ? value.toLowerCase() : "#000000"}
        onChange={(event) => onChange(event.target.value)}
      />
    </div>
  );
}

export function SettingsEditor({
  form,
  onChange,
  languages,
  readOnly,
  saving,
  error,
  onSave,
  saveLabel,
}: {
  form: SettingsForm;
  onChange: (form: SettingsForm) => void;
  languages: readonly LanguageInfo[];
  readOnly: boolean;
  saving: boolean;
  error: unknown;
  onSave: () => void;
  saveLabel: string;
}) {
  const [adding, setAdding] = useState("");
  const set = <K extends keyof SettingsForm>(key: K, value: SettingsForm[K]) =>
    onChange({ ...form, [key]: value });
  const available = languages.filter((l) => !form.textLanguages.includes(l.code));
  const addable = adding && available.some((l) => l.code === adding) ? adding : (available[0]?.code ?? "");
  const setText = (lang: string, key: TextKey, value: string) =>
    set("texts", { ...form.texts, [lang]: { ...(form.texts[lang] ?? emptyTexts()), [key]: value } });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSave();
  };

  return (
    <form className="settings-editor" onSubmit={submit} aria-label="Banner settings">
      <fieldset className="settings-fieldset" disabled={readOnly}>
        <legend className="visually-hidden">Banner settings</legend>
        <div className="settings-grid">
          <Field label="Layout" name={settingField("layout")} error={error}>
            <select value={form.layout} onChange={(event) => set("layout", event.target.value)}>
              <option value="">Default (bar)</option>
              <option value="bar">Bar: full width</option>
              <option value="box">Box: a corner card</option>
              <option value="modal">Modal: centred, page dimmed</option>
            </select>
          </Field>
          <Field label="Position" name={settingField("position")} error={error}>
            <select value={form.position} onChange={(event) => set("position", event.target.value)}>
              <option value="">Default (bottom)</option>
              <option value="bottom">Bottom</option>
              <option value="top">Top</option>
              <option value="bottom-left">Bottom left</option>
              <option value="bottom-right">Bottom right</option>
              <option value="center">Centre</option>
            </select>
          </Field>
          <Field label="Theme" name={settingField("theme")} error={error}>
            <select value={form.theme} onChange={(event) => set("theme", event.target.value)}>
              <option value="">Default (light)</option>
              <option value="light">Light</option>
              <option value="dark">Dark</option>
              <option value="auto">Auto (follows the visitor&apos;s system)</option>
            </select>
          </Field>
          <Field
            label="Font family"
            name={settingField("fontFamily")}
            error={error}
            hint="A CSS font-family list"
          >
            <input value={form.fontFamily} onChange={(event) => set("fontFamily", event.target.value)} />
          </Field>
          <Field label="Corner radius (px, 0-64)" name={settingField("borderRadius")} error={error}>
            <input
              type="number"
              inputMode="numeric"
              value={form.borderRadius}
              onChange={(event) => set("borderRadius", event.target.value)}
            />
          </Field>
          <Field label="Default language" name={settingField("defaultLanguage")} error={error}>
            <select
              value={form.defaultLanguage}
              onChange={(event) => set("defaultLanguage", event.target.value)}
            >
              <option value="">Not set (the notice&apos;s first language)</option>
              {languages.map((l) => (
                <option key={l.code} value={l.code}>
                  {l.name} ({l.nativeName})
                </option>
              ))}
            </select>
          </Field>
          <Field label="Privacy policy URL" name={settingField("privacyPolicyUrl")} error={error}>
            <input
              type="url"
              value={form.privacyPolicyUrl}
              onChange={(event) => set("privacyPolicyUrl", event.target.value)}
              placeholder="https://"
            />
          </Field>
          <Field label="Logo URL" name={settingField("logoUrl")} error={error}>
            <input
              type="url"
              value={form.logoUrl}
              onChange={(event) => set("logoUrl", event.target.value)}
              placeholder="https://"
            />
          </Field>
          <Field
            label="Reject all button"
            name={settingField("showRejectAll")}
            error={error}
            hint="The hosted banner always shows Reject all beside Accept all (refusing must be as easy as accepting)."
          >
            <select
              value={form.showRejectAll}
              onChange={(event) => set("showRejectAll", event.target.value as SettingsForm["showRejectAll"])}
            >
              <option value="">Not set</option>
              <option value="yes">Show</option>
              <option value="no">Hide (ignored by the hosted banner)</option>
            </select>
          </Field>
          <Field label="Per-purpose choices" name={settingField("showPreferences")} error={error}>
            <select
              value={form.showPreferences}
              onChange={(event) =>
                set("showPreferences", event.target.value as SettingsForm["showPreferences"])
              }
            >
              <option value="">Not set</option>
              <option value="yes">Offer</option>
              <option value="no">Do not offer</option>
            </select>
          </Field>
        </div>

        <h3>Colours</h3>
        <div className="settings-grid">
          {COLOR_KEYS.map((key) => (
            <ColorInput
              key={key}
              name={key}
              value={form.colors[key]}
              error={error}
              onChange={(value) => set("colors", { ...form.colors, [key]: value })}
            />
          ))}
        </div>

        <h3>Banner texts per language</h3>
        <p className="banner-muted">
          Built in for English and Hindi; other languages show English buttons until set here. The notice
          itself always shows in the chosen language.
        </p>
        {form.textLanguages.map((lang) => {
          const info = languages.find((l) => l.code === lang);
          return (
            <fieldset key={lang} className="texts-card" aria-label={`Banner texts: ${info?.name ?? lang}`}>
              <legend>{info ? `${info.name} (${info.nativeName})` : lang}</legend>
              <div className="settings-grid">
                {TEXT_KEYS.map((key) => (
                  <Field
                    key={key}
                    label={TEXT_LABELS[key]}
                    name={settingField("texts", lang, key)}
                    error={error}
                  >
                    <input
                      lang={lang}
                      dir={info?.direction ?? "ltr"}
                      value={form.texts[lang]?.[key] ?? ""}
                      onChange={(event) => setText(lang, key, event.target.value)}
                    />
                  </Field>
                ))}
              </div>
              {readOnly ? null : (
                <button
                  type="button"
                  className="button button-small"
                  onClick={() => {
                    const texts = { ...form.texts };
                    delete texts[lang];
                    onChange({ ...form, texts, textLanguages: form.textLanguages.filter((l) => l !== lang) });
                  }}
                >
                  Remove {info?.name ?? lang} texts
                </button>
              )}
            </fieldset>
          );
        })}
        {readOnly || available.length === 0 ? null : (
          <div className="texts-add">
            <Field label="Add texts for a language" name="add-texts-language">
              <select value={addable} onChange={(event) => setAdding(event.target.value)}>
                {available.map((l) => (
                  <option key={l.code} value={l.code}>
                    {l.name} ({l.nativeName})
                  </option>
                ))}
              </select>
            </Field>
            <button
              type="button"
              className="button"
              onClick={() => {
                if (!addable) return;
                onChange({
                  ...form,
                  textLanguages: [...form.textLanguages, addable],
                  texts: { ...form.texts, [addable]: form.texts[addable] ?? emptyTexts() },
                });
                setAdding("");
              }}
            >
              Add language
            </button>
          </div>
        )}
      </fieldset>
      <ErrorNotice
        error={unclaimedError(error, settingFieldNames(form))}
        title="The settings were not saved"
      />
      {readOnly ? null : (
        <div className="settings-actions">
          <button type="submit" className="button button-primary" disabled={saving}>
            {saving ? "Saving…" : saveLabel}
          </button>
        </div>
      )}
    </form>
  );
}
