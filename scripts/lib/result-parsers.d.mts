// Types for result-parsers.mjs (plain JavaScript, so the runner needs no build), for its tests.
export interface Counts {
  passed: number;
  failed: number;
}
export interface StepRun {
  output: string;
  exitCode: number;
}
export function exitCodeResult(run: StepRun): Counts;
export function parseNodeTap(tap: string): Counts | null;
export function parseFuzz(output: string): Counts | null;
export function parseConformance(output: string): Counts | null;
export function parsePytest(output: string): Counts | null;
export function parseSurefire(output: string): Counts | null;
export function failedNodeTapTests(tap: string): string[];
