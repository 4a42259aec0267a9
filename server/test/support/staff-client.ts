// Staff calls for the notices, banner and capabilities tests: one session per organisation and
// role (sign-in is rate-limited per account), and a status assertion that returns the body.
import assert from "node:assert/strict";
import type { LightMyRequestResponse } from "fastify";
import type { StaffRole } from "../../src/lib/credentials.js";
import { signIn, type SeededOrg, type TestApp } from "./harness.js";

export type Method = "GET" | "POST" | "PUT" | "DELETE";

export function staffClient(t: TestApp) {
  const sessions = new Map<string, Record<string, string>>();
  return async (
    seeded: SeededOrg,
    role: StaffRole,
    method: Method,
    url: string,
    payload?: unknown,
  ): Promise<LightMyRequestResponse> => {
    const key = `${seeded.org.slug}:${role}`;
    let headers = sessions.get(key);
    if (!headers) {
      headers = (await signIn(t, seeded, role)).headers;
      sessions.set(key, headers);
    }
    return t.request({
      method,
      url,
      headers,
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
  };
}

/** Asserts the status and returns the JSON body. */
export function ok<T>(res: LightMyRequestResponse, status = 200): T {
  assert.equal(res.statusCode, status, res.body);
  return res.json() as T;
}
