// Waiting on real time for something another task or instance does (a notification, a delivery),
// polled a few dozen times a second.

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns true, for at most `ms`; whether it did. */
export async function eventually(probe: () => boolean | Promise<boolean>, ms = 5_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() > deadline) return false;
    await pause(20);
  }
}

/** Resolves once `check` holds; throws naming `what` when it has not within `timeoutMs`. */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  what = "condition",
): Promise<void> {
  if (!(await eventually(check, timeoutMs))) throw new Error(`not in ${timeoutMs} ms: ${what}`);
}
