// Types for suite-batches.mjs (plain JavaScript, so the runner needs no build), for its tests.
export interface Suite {
  id: string;
  batch?: symbol;
}
export function beside<T extends Suite>(...suites: T[]): T[];
export function batches<T extends Suite>(suites: T[]): T[][];
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
