// Sign-in: organisation slug, email and password. Wrong credentials are one answer (401) by design
// (the server does not say which part was wrong); repeated failures are rate-limited (429 with
// Retry-After). On success the user goes back to `?next` (where a lost session interrupted them).
import { useEffect, useState, type FormEvent } from "react";
import { ApiError } from "../../api/errors.js";
import { navigate, useLocation } from "../../router.js";
import { safeNext, useSession } from "../../session/SessionProvider.js";
import { ErrorNotice, Field, Notice, unclaimedError } from "../../ui/index.js";

const FIELDS = ["organizationSlug", "email", "password"] as const;
const LAST_ORG = "guard.dashboard.organizationSlug";

function storedOrg(): string {
  try {
    return localStorage.getItem(LAST_ORG) ?? "";
  } catch {
    return "";
  }
}

export function SignInPage() {
  const { signIn, endedBy } = useSession();
  const { query } = useLocation();
  const next = safeNext(query.get("next"));
  const [organizationSlug, setOrganizationSlug] = useState(storedOrg);
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    document.title = "Sign in · Guard";
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await signIn({ organizationSlug: organizationSlug.trim(), email: email.trim(), password });
      try {
        localStorage.setItem(LAST_ORG, organizationSlug.trim());
      } catch {
        // Remembering the organisation is a convenience only.
      }
      navigate(next, { replace: true });
    } catch (caught) {
      setError(caught);
      setPassword("");
    } finally {
      setBusy(false);
    }
  };

  const apiError = error instanceof ApiError ? error : undefined;
  let message: string | undefined;
  if (apiError?.status === 401) message = "Wrong organisation, email or password.";
  else if (apiError?.status === 429) {
    const wait = apiError.retryAfter;
    message = `Too many failed sign-in attempts. Wait ${wait === undefined ? "a while" : `${wait} second${wait === 1 ? "" : "s"}`} before trying again.`;
  }

  return (
    <main className="sign-in" id="main">
      <div className="sign-in-card">
        <p className="brand brand-large">Guard</p>
        <h1>Sign in to the dashboard</h1>
        {endedBy === "expired" ? (
          <Notice tone="warning">Your session has ended. Sign in again to continue where you were.</Notice>
        ) : null}
        {message ? (
          <div className="notice notice-error" role="alert">
            <p>{message}</p>
          </div>
        ) : (
          <ErrorNotice error={unclaimedError(error, FIELDS)} title="Could not sign in" />
        )}
        <form onSubmit={(event) => void submit(event)} noValidate>
          <Field
            label="Organisation"
            name="organizationSlug"
            error={error}
            hint="Your organisation's short name, e.g. demo"
          >
            <input
              type="text"
              autoComplete="organization"
              autoCapitalize="none"
              spellCheck={false}
              required
              value={organizationSlug}
              onChange={(event) => setOrganizationSlug(event.target.value)}
            />
          </Field>
          <Field label="Email" name="email" error={error}>
            <input
              type="email"
              autoComplete="username"
              required
              value={email}
              onChange={(event) => setEmail(event.target.value)}
            />
          </Field>
          <Field label="Password" name="password" error={error}>
            <input
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(event) => setPassword(event.target.value)}
            />
          </Field>
          <button
            type="submit"
            className="button button-primary button-block"
            disabled={busy}
            aria-busy={busy}
          >
            {busy ? "Signing in…" : "Sign in"}
          </button>
        </form>
      </div>
    </main>
  );
}
