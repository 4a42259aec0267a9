// A real, listening Guard serving the real dashboard build for the browser tests: the server
// harness's app (GUARD_TEST_DB=pglite|postgres picks the engine; every response is checked against
// the contract) bound to a loopback port, with one organisation that has a staff user of each role
// (admin, dpo, viewer). The dashboard is built first when dashboard/dist is missing or stale.
import type { AddressInfo } from "node:net";
import { buildIfStale } from "../../../../scripts/build-if-stale.mjs";
import { loadDashboard } from "../../../../server/src/web/dashboard.js";
import {
  seedOrganization,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../../../../server/test/support/harness.js";

export type Role = "admin" | "dpo" | "viewer";

export interface GuardUnderTest {
  t: TestApp;
  seeded: SeededOrg;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** The dashboard's URL for an app path ("/" is the Overview). */
  url(appPath?: string): string;
  /** Ends every live staff session, as their expiry does: the server's clock moves past the TTL. */
  expireSessions(): void;
  close(): Promise<void>;
}

export async function startGuard(): Promise<GuardUnderTest> {
  await buildIfStale("dashboard");
  const dashboard = loadDashboard();
  if (!dashboard) throw new Error("dashboard/dist is missing after the build");
  const t = await startTestApp({}, { dashboard });
  // The harness's clock starts at a fixed date; the browser's is real. Start the server at the real
  // time so SLA countdowns and dates the page computes agree with what the server stored.
  t.clock.set(Date.now());
  try {
    await t.app.listen({ port: 0, host: "127.0.0.1" });
    const { port } = t.app.server.address() as AddressInfo;
    const seeded = await seedOrganization(t);
    const origin = `http://127.0.0.1:${port}`;
    return {
      t,
      seeded,
      origin,
      url: (appPath = "/") => `${origin}/dashboard${appPath === "/" ? "/" : appPath}`,
      expireSessions: () => t.clock.advance((t.config.sessionTtlHours + 1) * 3_600_000),
      close: () => t.close(),
    };
  } catch (error) {
    await t.close();
    throw error;
  }
}
