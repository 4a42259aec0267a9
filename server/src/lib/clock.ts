// Time is injected so tests can move it (token expiry, session expiry, SLA clocks) without sleeping.
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests can set and advance. */
export class ManualClock implements Clock {
  constructor(private current = Date.UTC(2026, 10, 23, 9, 0, 0)) {}
  now(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(epochMs: number): void {
    this.current = epochMs;
  }
}
