import { useCallback, useEffect, useRef, useState, type DependencyList } from "react";

export interface ApiState<T> {
  data: T | undefined;
  /** What the last load threw (usually an ApiError); undefined while loading or after success. */
  error: unknown;
  loading: boolean;
  /** Loads again (after a write, or from an ErrorNotice's "Try again"), keeping the old data shown meanwhile. */
  reload: () => void;
  /**
   * Shows `value` at once as the loaded data: for a write whose answer is the state now in force,
   * so the page never shows the state from before the write beside the write's success notice. A
   * load still on its way is dropped (it may have been answered before the write committed).
   */
  replace(value: T): void;
}

/**
 * Runs `fn` on mount and whenever `deps` change, like an effect, and tracks its result. Only the
 * latest call's result is kept, so a slow earlier answer never overwrites a newer one.
 *
 *   const keys = useApi(() => ok(api.GET("/api/v1/staff/api-keys")), []);
 */
export function useApi<T>(fn: () => Promise<T>, deps: DependencyList): ApiState<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [loading, setLoading] = useState(true);
  const [attempt, setAttempt] = useState(0);
  const latest = useRef(0);
  const fnRef = useRef(fn);
  fnRef.current = fn;

  useEffect(() => {
    const call = ++latest.current;
    setLoading(true);
    setError(undefined);
    fnRef.current().then(
      (value) => {
        if (call !== latest.current) return;
        setData(value);
        setLoading(false);
      },
      (reason: unknown) => {
        if (call !== latest.current) return;
        setError(reason);
        setLoading(false);
      },
    );
    return () => {
      // Unmounted or deps changed: whatever this call answers is no longer wanted.
      if (latest.current === call) latest.current++;
    };
    // The caller's deps are the deps (fn is read through a ref, so a new closure each render is fine).
  }, [...deps, attempt]);

  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  const replace = useCallback((value: T) => {
    latest.current++;
    setData(value);
    setError(undefined);
    setLoading(false);
  }, []);
  return { data, error, loading, reload, replace };
}
