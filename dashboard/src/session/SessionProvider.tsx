// The signed-in staff session: resumed from the cookie on load (GET /api/v1/staff/session), created
// by signing in (POST), ended by signing out (DELETE). The session's csrfToken goes to the API
// client for every write. When any call answers 401 the session is gone: it is cleared and the user
// is sent to sign-in with `?next=<the page they were on>`, to which signing in returns them.
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { api, setCsrfToken, setSessionLostHandler, type Schemas } from "../api/client.js";
import { ApiError } from "../api/errors.js";
import { SIGN_IN_PATH, signInPathFor } from "../lib/paths.js";
import { currentPath, navigate } from "../router.js";

export { SIGN_IN_PATH, safeNext } from "../lib/paths.js";

export type StaffSession = Schemas["StaffSession"];

export interface SignInInput {
  organizationSlug: string;
  email: string;
  password: string;
}

export interface SessionState {
  /** "loading" until the first GET answers. */
  status: "loading" | "signed-in" | "signed-out";
  session: StaffSession | null;
  /** Why the user was last signed out without asking ("expired"), for the sign-in page to say. */
  endedBy: "expired" | null;
  signIn(input: SignInInput): Promise<StaffSession>;
  signOut(): Promise<void>;
  /** An error the first GET met other than 401 (Guard down): shown instead of the sign-in form. */
  loadError: ApiError | null;
  retryLoad(): void;
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [status, setStatus] = useState<SessionState["status"]>("loading");
  const [session, setSession] = useState<StaffSession | null>(null);
  const [endedBy, setEndedBy] = useState<SessionState["endedBy"]>(null);
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  const [loadAttempt, setLoadAttempt] = useState(0);

  const adopt = useCallback((next: StaffSession | null) => {
    setCsrfToken(next?.csrfToken ?? null);
    setSession(next);
    setStatus(next ? "signed-in" : "signed-out");
  }, []);

  useEffect(() => {
    let live = true;
    setLoadError(null);
    api.GET("/api/v1/staff/session").then(
      ({ data }) => live && adopt(data ?? null),
      (error: unknown) => {
        if (!live) return;
        if (error instanceof ApiError && error.status !== 401) setLoadError(error);
        adopt(null);
      },
    );
    return () => {
      live = false;
    };
  }, [adopt, loadAttempt]);

  const sessionLost = useCallback(() => {
    adopt(null);
    setEndedBy("expired");
    const here = currentPath();
    if (!here.startsWith(SIGN_IN_PATH)) navigate(signInPathFor(here), { replace: true });
  }, [adopt]);

  useEffect(() => {
    setSessionLostHandler(sessionLost);
    return () => setSessionLostHandler(null);
  }, [sessionLost]);

  // A user coming back to the tab (after lunch, after the session's 12 hours) learns at once that
  // the session ended, rather than when their next save fails; a live session is refreshed.
  useEffect(() => {
    if (status !== "signed-in") return;
    let checking = false;
    const check = () => {
      if (checking || document.visibilityState !== "visible") return;
      checking = true;
      api.GET("/api/v1/staff/session").then(
        ({ data }) => {
          checking = false;
          if (data) adopt(data);
        },
        (error: unknown) => {
          checking = false;
          if (error instanceof ApiError && error.status === 401) sessionLost();
        },
      );
    };
    window.addEventListener("focus", check);
    document.addEventListener("visibilitychange", check);
    return () => {
      window.removeEventListener("focus", check);
      document.removeEventListener("visibilitychange", check);
    };
  }, [status, adopt, sessionLost]);

  const signIn = useCallback(
    async (input: SignInInput) => {
      const { data } = await api.POST("/api/v1/staff/session", { body: input });
      if (!data) throw new Error("sign-in answered without a session");
      setEndedBy(null);
      adopt(data);
      return data;
    },
    [adopt],
  );

  const signOut = useCallback(async () => {
    try {
      await api.DELETE("/api/v1/staff/session");
    } catch (error) {
      // 401: already ended server-side, which is what signing out wants. Anything else is reported
      // by leaving the session in place, so the user knows they are still signed in.
      if (!(error instanceof ApiError && error.status === 401)) throw error;
    }
    setEndedBy(null);
    adopt(null);
    navigate(SIGN_IN_PATH, { replace: true });
  }, [adopt]);

  const value = useMemo<SessionState>(
    () => ({
      status,
      session,
      endedBy,
      signIn,
      signOut,
      loadError,
      retryLoad: () => setLoadAttempt((n) => n + 1),
    }),
    [status, session, endedBy, signIn, signOut, loadError],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const value = useContext(SessionContext);
  if (!value) throw new Error("useSession() outside <SessionProvider>");
  return value;
}

/** The signed-in session, for pages rendered only when signed in (the Layout guarantees it). */
export function useStaff(): StaffSession {
  const { session } = useSession();
  if (!session) throw new Error("useStaff() while signed out");
  return session;
}
