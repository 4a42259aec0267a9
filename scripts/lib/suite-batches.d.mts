// Types for suite-batches.mjs (plain JavaScript, so the runner needs no build), for its tests.
export interface Suite {
  id: string;
  title?: string;
  batch?: symbol;
  lane?: number;
}
/** Each argument is a lane: one suite, or suites that run one after the other. */
export function beside<T extends Suite>(...lanes: (T | T[])[]): T[];
export function batches<T extends Suite>(suites: T[]): T[][];
export function besideOf<T extends Suite>(batch: T[], suite: T): string[];
export function runLanes<T extends Suite, R>(
  batch: T[],
  run: (suite: T, index: number) => Promise<R>,
  options?: { stopped?: () => boolean; skip?: (suite: T) => R },
): Promise<R>[];
interface Sink {
  write(chunk: string | Uint8Array): unknown;
}
export class SuiteOutput {
  constructor(terminal?: { stdout: Sink; stderr: Sink });
  stdout: Sink;
  stderr: Sink;
  log(line: string): void;
  error(line: string): void;
  goLive(): void;
}
