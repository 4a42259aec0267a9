// A background job every instance runs: once at start, then every `intervalMs`, never two runs of
// it at once (a tick while one runs is skipped). A failed run goes to `onError` and the next tick
// retries. The timer does not keep the process alive; `stop` waits for the run in flight.

export interface PeriodicJob {
  stop(): Promise<void>;
}

export function startPeriodicJob(options: {
  /** One run; `stopping()` turns true once `stop` was called, for a run to end between batches. */
  run: (stopping: () => boolean) => Promise<unknown>;
  intervalMs: number;
  onError?: ((error: unknown) => void) | undefined;
}): PeriodicJob {
  let running: Promise<unknown> | undefined;
  let stopped = false;
  const stopping = () => stopped;
  const tick = () => {
    if (stopped || running) return;
    running = options
      .run(stopping)
      .catch((error: unknown) => options.onError?.(error))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, options.intervalMs);
  timer.unref();
  tick();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
