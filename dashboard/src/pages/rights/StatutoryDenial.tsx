// Denying an erasure request on a statutory basis: pick a suggested provision (or type one), check
// it, confirm. One POST; the server moves the request to rejected and records the basis.
import { useState, type FormEvent } from "react";
import { api, ok } from "../../api/client.js";
import { ApiError, errorNamesField } from "../../api/errors.js";
import { ConfirmDialog, ErrorNotice, Field, unclaimedError, useApi } from "../../ui/index.js";

const FIELDS = ["statute", "citation"] as const;

export function StatutoryDenial({
  requestId,
  onDone,
}: {
  requestId: string;
  onDone: (message: string) => void;
}) {
  const suggestions = useApi(() => ok(api.GET("/api/v1/staff/dsr/statutory-basis-suggestions")), []);
  const [statute, setStatute] = useState("");
  const [citation, setCitation] = useState("");
  const [chosen, setChosen] = useState("");
  const [error, setError] = useState<unknown>(undefined);
  const [confirming, setConfirming] = useState(false);
  const list = suggestions.data?.suggestions ?? [];

  const choose = (index: string) => {
    setError(undefined);
    setChosen(index);
    const suggestion = list[Number(index)];
    if (index !== "" && suggestion) {
      setStatute(suggestion.statute);
      setCitation(suggestion.citation);
    }
  };

  const deny = async () => {
    try {
      await api.POST("/api/v1/staff/dsr/{requestId}/statutory-denial", {
        params: { path: { requestId } },
        body: { statute, citation },
      });
    } catch (caught) {
      // A field's problem is shown next to that field, so the dialog closes; anything else stays in it.
      if (caught instanceof ApiError && FIELDS.some((name) => errorNamesField(caught, name))) {
        setError(caught);
        setConfirming(false);
        return;
      }
      throw caught;
    }
    setConfirming(false);
    onDone("The request was denied on the statutory basis and is now rejected.");
  };

  const suggestion = chosen === "" ? undefined : list[Number(chosen)];
  return (
    <form
      className="rights-action"
      aria-labelledby="deny-heading"
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        setError(undefined);
        setConfirming(true);
      }}
      noValidate
    >
      <h3 id="deny-heading">Deny on a statutory basis</h3>
      <p className="field-hint">
        When a law requires the data to be kept, the erasure request is denied with the provision that
        requires it. The principal is told the basis.
      </p>
      <ErrorNotice
        error={suggestions.error}
        title="Suggestions could not be loaded"
        onRetry={suggestions.reload}
      />
      {list.length > 0 ? (
        <div className="field">
          <label htmlFor="statutory-suggestion">Suggested provision</label>
          <select id="statutory-suggestion" value={chosen} onChange={(event) => choose(event.target.value)}>
            <option value="">Choose one to fill the fields…</option>
            {list.map((s, index) => (
              <option key={s.suggestionId ?? index} value={String(index)}>
                {s.statute}
                {s.sector ? ` (${s.sector})` : ""}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      {suggestion ? (
        <div className="notice notice-warning">
          {suggestion.description ? <p>{suggestion.description}</p> : null}
          {suggestion.retentionPeriod ? <p>Retention: {suggestion.retentionPeriod}</p> : null}
          {suggestion.caution ? <p>{suggestion.caution}</p> : null}
        </div>
      ) : null}
      <Field label="Statute" name="statute" error={error}>
        <input
          type="text"
          maxLength={200}
          value={statute}
          onChange={(event) => {
            setError(undefined);
            setStatute(event.target.value);
          }}
        />
      </Field>
      <Field label="Citation" name="citation" error={error}>
        <textarea
          rows={3}
          maxLength={2000}
          value={citation}
          onChange={(event) => {
            setError(undefined);
            setCitation(event.target.value);
          }}
        />
      </Field>
      <ErrorNotice error={unclaimedError(error, FIELDS)} title="The request was not denied" />
      <button type="submit" className="button button-danger">
        Deny erasure…
      </button>
      <ConfirmDialog
        open={confirming}
        title="Deny this erasure request?"
        confirmLabel="Deny erasure"
        danger
        onConfirm={deny}
        onCancel={() => setConfirming(false)}
      >
        <p>
          The request becomes <strong>rejected</strong>, which is final. Recorded basis: {statute || "(none)"}
          .
        </p>
      </ConfirmDialog>
    </form>
  );
}
