// Consent lookup console (issue 24, page 6): find a data principal of this organisation by email or
// by the fiduciary's external id, and show every consent with its evidence, the consent events and
// the nomination. The search lives in the URL (?by=email&q=...), so a lookup can be linked, reloaded
// and reached with Back. Reading only: every staff role may use it.
import { useState, type FormEvent } from "react";
import { api, ok, type Schemas } from "../../api/client.js";
import { ApiError } from "../../api/errors.js";
import type { PageProps } from "../../routes.js";
import { setQuery, useLocation } from "../../router.js";
import { EmptyState, ErrorNotice, Field, Loading, Page, unclaimedError, useApi } from "../../ui/index.js";
import { PrincipalEvidence } from "./PrincipalEvidence.js";
import "./lookup.css";

type LookupBy = "email" | "externalId";

const BY_LABELS: Record<LookupBy, string> = { email: "Email", externalId: "External id" };

function parseBy(value: string | null): LookupBy {
  return value === "externalId" ? "externalId" : "email";
}

export default function ConsentLookupPage(_props: PageProps) {
  const { query } = useLocation();
  const by = parseBy(query.get("by"));
  const q = query.get("q")?.trim() ?? "";
  const result = useApi(
    () =>
      q === ""
        ? Promise.resolve(null)
        : ok(
            api.GET("/api/v1/staff/principals/lookup", {
              params: { query: by === "email" ? { email: q } : { externalId: q } },
            }),
          ),
    [by, q],
  );

  return (
    <Page
      title="Consent lookup"
      intro="Find a data principal by email or by your own id for them, and see each consent with its evidence."
    >
      <LookupForm key={`${by}:${q}`} by={by} q={q} error={result.error} />
      <LookupResult by={by} q={q} {...result} />
    </Page>
  );
}

function LookupForm({ by, q, error }: { by: LookupBy; q: string; error: unknown }) {
  const [mode, setMode] = useState<LookupBy>(by);
  const [value, setValue] = useState(q);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setQuery({ by: mode, q: value.trim() || undefined }, { replace: false });
  };
  // The API's 400 names `email` or `externalId`: shown at the input when it is about this search.
  const fieldProblem = error instanceof ApiError && error.status === 400 && mode === by ? error : undefined;
  return (
    <form className="lookup-form" role="search" aria-label="Look up a principal" onSubmit={submit}>
      <fieldset className="lookup-by">
        <legend>Look up by</legend>
        {(Object.keys(BY_LABELS) as LookupBy[]).map((option) => (
          <label key={option} className="lookup-by-option">
            <input
              type="radio"
              name="by"
              value={option}
              checked={mode === option}
              onChange={() => setMode(option)}
            />
            {BY_LABELS[option]}
          </label>
        ))}
      </fieldset>
      <Field
        label={mode === "email" ? "Principal's email" : "Principal's external id"}
        name={mode}
        error={fieldProblem}
        hint={
          mode === "email"
            ? "The address the principal gave (any letter case)."
            : "The id your systems use for the principal, as sent to Guard."
        }
      >
        <input
          type={mode === "email" ? "email" : "text"}
          value={value}
          required
          autoComplete="off"
          onChange={(event) => setValue(event.target.value)}
        />
      </Field>
      <button type="submit" className="button button-primary">
        Look up
      </button>
    </form>
  );
}

function LookupResult({
  by,
  q,
  data,
  error,
  loading,
  reload,
}: {
  by: LookupBy;
  q: string;
  data: Schemas["PrincipalLookup"] | null | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}) {
  if (q === "")
    return (
      <EmptyState title="Nobody looked up yet">
        Enter an email address or an external id above to see that principal&apos;s consents.
      </EmptyState>
    );
  if (loading) return <Loading label="Looking the principal up…" />;
  if (error instanceof ApiError && error.status === 404)
    return (
      <EmptyState
        title={`No principal with that ${by === "email" ? "email" : "external id"} in this organisation`}
      >
        Guard knows no data principal of this organisation as <strong>{q}</strong>. Check the spelling, or
        look up by {by === "email" ? "external id" : "email"} instead.
      </EmptyState>
    );
  if (error) {
    const shown = error instanceof ApiError && error.status === 400 ? unclaimedError(error, [by]) : error;
    return shown ? <ErrorNotice error={shown} onRetry={reload} /> : null;
  }
  if (!data) return null;
  return <PrincipalEvidence lookup={data} />;
}
