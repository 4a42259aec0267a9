// What every vector file shares: the Wycheproof-style layout (header, case count, unique ids) and
// the JSON helpers the family builders use. See contract/vectors/README.md for the format.
import { fileURLToPath } from "node:url";

export const VECTORS_DIR = fileURLToPath(new URL("../../vectors/", import.meta.url));

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface VectorCase {
  id: string;
  comment: string;
  flags: string[];
  [key: string]: Json;
}

export function vectorFile(header: JsonObject, cases: VectorCase[]): JsonObject {
  const ids = new Set(cases.map((c) => c.id));
  if (ids.size !== cases.length) throw new Error("vector case ids must be unique");
  return { schemaVersion: 1, ...header, numberOfCases: cases.length, cases: cases as Json[] };
}

/** Drops `undefined` members, so the object equals its JSON round trip. */
export function json(value: unknown): Json {
  return JSON.parse(JSON.stringify(value)) as Json;
}

export const utf8Hex = (text: string): string => Buffer.from(text, "utf8").toString("hex");

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
