// Test harness: a fresh database for each test file, on the engine GUARD_TEST_DB names (`pglite`,
// the default, or `postgres` with GUARD_TEST_DATABASE_URL pointing at a throwaway cluster's
// maintenance database), and an app built around it for inject() calls.
import { bannerScriptFrom, type BannerScript } from "../../src/banner/script.js";
import type { DashboardBuild } from "../../src/web/dashboard.js";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from "fastify";
import pg from "pg";
import { createApiKey } from "../../src/accounts/api-keys.js";
import { createOrganization, type Organization } from "../../src/accounts/organizations.js";
import { createStaffUser } from "../../src/accounts/staff.js";
import { testConfig, type Config } from "../../src/config.js";
import { dumpPgliteSnapshot, openDatabase, type Database } from "../../src/db/database.js";
import { dropTemplateDatabases, snapshotDigest } from "../../src/db/fresh-snapshot.js";
import { migrate } from "../../src/db/migrate.js";
import { readSnapshotTar, type SnapshotTar } from "../../src/db/snapshot-tar.js";
import { createApp } from "../../src/app.js";
import type { StaffRole } from "../../src/lib/credentials.js";
import { ManualClock } from "../../src/lib/clock.js";
import { usePasswordHashCostForTests } from "../../src/lib/secrets.js";
import { randomBase62 } from "../../src/lib/ids.js";
import { ROUTE_MODULES } from "../../src/routes.js";

export const engine = (process.env.GUARD_TEST_DB ?? "pglite") as "pglite" | "postgres";

// Staff passwords hashed at scrypt N=2^10 instead of 2^15 in every test process that loads the
// harness (scripts/README.md): the suites create and sign in thousands of staff accounts. The real cost is tested where it matters (server/test/lib/secrets.test.ts) and the CLI
// tests' `guard` processes keep it.
usePasswordHashCostForTests(2 ** 10);

/**
 * A new PostgreSQL database on the test cluster, empty or a copy of `template`; returns its URL.
 */
export async function createPostgresDatabase(
  options: { template?: string } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `guard_t${process.pid}_${randomBytes(4).toString("hex")}`;
  await withAdminClient((admin) =>
    admin.query(`CREATE DATABASE ${name}${options.template ? ` TEMPLATE ${options.template}` : ""}`),
  );
  return {
    url: testClusterUrl(name),
    drop: async () => {
      await withAdminClient((admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

function adminUrl(): string {
  const url = process.env.GUARD_TEST_DATABASE_URL;
  if (!url) throw new Error("GUARD_TEST_DB=postgres needs GUARD_TEST_DATABASE_URL (npm test sets it)");
  return url;
}

function testClusterUrl(database: string): string {
  const url = new URL(adminUrl());
  url.pathname = `/${database}`;
  return url.toString();
}

async function withAdminClient<T>(work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

let postgresTemplate: Promise<string> | undefined;

/**
 * A migrated database on the test cluster that test databases are copied from, one per set of
 * migrations (its name carries their digest). Whichever test process asks first makes it, under an
 * advisory lock the others wait on; copying it (CREATE DATABASE … TEMPLATE) is cheaper than
 * migrating a new database (figures in scripts/README.md).
 */
function migratedPostgresTemplate(): Promise<string> {
  postgresTemplate ??= withAdminClient(async (admin) => {
    const name = `guard_template_${snapshotDigest()}`;
    await admin.query("SELECT pg_advisory_lock(hashtext($1))", [name]);
    try {
      const existing = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
      if (existing.rowCount === 0) {
        // Made under another name and renamed once whole: a process killed half-way leaves no
        // half-migrated template behind that name.
        const building = `${name}_${process.pid}`;
        await admin.query(`DROP DATABASE IF EXISTS ${building}`);
        await admin.query(`CREATE DATABASE ${building}`);
        const db = await openDatabase({ databaseUrl: testClusterUrl(building) });
        try {
          await migrate(db);
        } finally {
          await db.close();
        }
        await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      }
    } finally {
      await admin.query("SELECT pg_advisory_unlock(hashtext($1))", [name]);
    }
    return name;
  });
  return postgresTemplate;
}

/**
 * An empty, unmigrated database on the engine under test. Whoever closes `db` (the test, or a
 * server it was handed to) then calls `drop`, which removes a PostgreSQL database (nothing to do
 * for an in-memory PGlite).
 */
export async function openEmptyTestDatabase(): Promise<{
  db: Database;
  url?: string;
  drop(): Promise<void>;
}> {
  if (engine === "postgres") {
    const created = await createPostgresDatabase();
    return { db: await openDatabase({ databaseUrl: created.url }), url: created.url, drop: created.drop };
  }
  return { db: await openDatabase({ settings: TEST_PGLITE_SETTINGS }), drop: async () => {} };
}

/** A migrated database on the engine under test; `dispose` closes (and drops) it. */
export async function openTestDatabase(): Promise<{ db: Database; url?: string; dispose(): Promise<void> }> {
  if (engine === "postgres") {
    const { url, drop } = await createPostgresDatabase({ template: await migratedPostgresTemplate() });
    const db = await openDatabase({ databaseUrl: url });
    await migrate(db); // a no-op on the template's copy; keeps this path honest if it is stale
    return {
      db,
      url,
      dispose: async () => {
        await db.close();
        await drop();
      },
    };
  }
  // In a data directory unpacked from the snapshot, as a fresh `guard serve` opens one: faster than
  // PGlite's loadDataDir building the same cluster in memory through its WebAssembly file layer
  // (scripts/README.md), on tmpfs where there is one.
  const dataDir = fs.mkdtempSync(path.join(TEST_DATA_ROOT, `${TEST_DATA_PREFIX}${process.pid}-`));
  openTestDirectories.add(dataDir);
  try {
    const db = await openDatabase({
      dataDir,
      freshSnapshot: await parsedSnapshot(),
      settings: TEST_PGLITE_SETTINGS,
    });
    await migrate(db); // a no-op on the snapshot; keeps this path honest if the cache is stale
    return {
      db,
      dispose: async () => {
        try {
          await db.close();
        } finally {
          fs.rmSync(dataDir, { recursive: true, force: true });
          openTestDirectories.delete(dataDir);
        }
      },
    };
  } catch (error) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    openTestDirectories.delete(dataDir);
    throw error;
  }
}

// A test database holds a few hundred rows, and PGlite's start takes longer the larger its buffer
// pool, so test databases start with 16 MB of shared buffers instead of the default 128 MB
// (figures in scripts/README.md).
// Plans do not depend on it; the servers the CLI, reliability and browser suites start keep the default.
const TEST_PGLITE_SETTINGS = { shared_buffers: "16MB" };

// Test data directories: in memory-backed /dev/shm when the machine has one with room (a
// container's default is 64 MB; a database is about 30 MB), else the temp dir; named by the test
// process's pid so that one a killed process left is found and removed by the next.
const TEST_DATA_ROOT = tmpfsWithRoom("/dev/shm", 2 * 1024 ** 3) ?? os.tmpdir();
const TEST_DATA_PREFIX = "guard-test-db-";

function tmpfsWithRoom(dir: string, bytes: number): string | undefined {
  try {
    const stats = fs.statfsSync(dir);
    return stats.bavail * stats.bsize >= bytes ? dir : undefined;
  } catch {
    return undefined;
  }
}

let testSnapshot: Promise<SnapshotTar> | undefined;
// A test that never disposes its database leaves its directory; removed as the process exits.
const openTestDirectories = new Set<string>();
process.on("exit", () => {
  for (const dir of openTestDirectories) fs.rmSync(dir, { recursive: true, force: true });
});

/** The migrated snapshot, parsed once per test process; abandoned test directories removed first. */
function parsedSnapshot(): Promise<SnapshotTar> {
  testSnapshot ??= (async () => {
    removeAbandonedTestDirectories();
    return readSnapshotTar(new Uint8Array(await (await migratedSnapshot()).arrayBuffer()));
  })();
  return testSnapshot;
}

function removeAbandonedTestDirectories(): void {
  for (const name of fs.readdirSync(TEST_DATA_ROOT)) {
    const pid = Number(new RegExp(`^${TEST_DATA_PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (!pid || pid === process.pid || processIsAlive(pid)) continue;
    fs.rmSync(path.join(TEST_DATA_ROOT, name), { recursive: true, force: true });
  }
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, another user's.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * A migrated, empty embedded database as a tarball, cached in the temp dir under a hash of the
 * migrations. Initialising PGlite from scratch (initdb + migrations) costs seconds per test file;
 * loading the snapshot costs well under one.
 */
export async function migratedSnapshot(): Promise<Blob> {
  const file = path.join(os.tmpdir(), `guard-test-pglite-${snapshotDigest()}.tar`);
  if (fs.existsSync(file)) return new Blob([fs.readFileSync(file)]);
  const db = await openDatabase({});
  await migrate(db);
  // The shape a fresh data directory has (db/fresh-snapshot.ts), so the tests run on it.
  await dropTemplateDatabases(db);
  const snapshot = (await dumpPgliteSnapshot(db))!;
  await db.close();
  // Written beside the final name and renamed, so a concurrent test file never reads half a file.
  const partial = `${file}.${process.pid}.partial`;
  fs.writeFileSync(partial, Buffer.from(await snapshot.arrayBuffer()));
  fs.renameSync(partial, file);
  return snapshot;
}

export interface TestApp {
  app: FastifyInstance;
  db: Database;
  /** The PostgreSQL server database under test; undefined on PGlite. */
  databaseUrl: string | undefined;
  clock: ManualClock;
  config: Config;
  logs: string[];
  request(options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** A stand-in for the built banner script, so the server tests do not depend on `banner/` being built. */
export const TEST_BANNER_SCRIPT = bannerScriptFrom(
  Buffer.from("/* Guard banner (test stand-in) */\n"),
  "0.0.0-test",
);

/** An app on a fresh database, checking every response against the contract. */
export async function startTestApp(
  overrides: Partial<Config> = {},
  appOptions: {
    bannerScript?: BannerScript | null;
    demoShop?: boolean;
    dashboard?: DashboardBuild | null;
  } = {},
): Promise<TestApp> {
  const { db, url, dispose } = await openTestDatabase();
  const clock = new ManualClock();
  const config = testConfig({ logLevel: "info", ...overrides });
  const logs: string[] = [];
  const app = await createApp({
    config,
    db,
    clock,
    routes: ROUTE_MODULES,
    checkResponses: true,
    logStream: { write: (line: string) => void logs.push(line) },
    bannerScript: appOptions.bannerScript === undefined ? TEST_BANNER_SCRIPT : appOptions.bannerScript,
    demoShop: appOptions.demoShop ?? false,
    // Server tests do not depend on `dashboard/` being built; the dashboard's own tests pass a build.
    dashboard: appOptions.dashboard ?? null,
  });
  return {
    app,
    db,
    databaseUrl: url,
    clock,
    config,
    logs,
    request: (options) => app.inject(options),
    close: async () => {
      await app.close();
      await dispose();
    },
  };
}

/**
 * Another instance of the service on `t`'s database, as a second server process would be: on
 * PostgreSQL its own pool and listening session; on PGlite (one process by design) the same
 * database object. Close it before `t`.
 */
export async function startSecondInstance(t: TestApp): Promise<TestApp> {
  const db = t.databaseUrl ? await openDatabase({ databaseUrl: t.databaseUrl }) : t.db;
  const app = await createApp({
    config: t.config,
    db,
    clock: t.clock,
    routes: ROUTE_MODULES,
    checkResponses: true,
    logStream: { write: () => undefined },
    bannerScript: TEST_BANNER_SCRIPT,
    dashboard: null,
  });
  return {
    ...t,
    app,
    db,
    logs: [],
    request: (options) => app.inject(options),
    close: async () => {
      await app.close();
      if (db !== t.db) await db.close();
    },
  };
}

export interface SeededOrg {
  org: Organization;
  apiKey: string;
  apiKeyId: string;
  staff: Record<StaffRole, { email: string; password: string }>;
}

/** An organisation with a service API key and one staff user of each role. */
export async function seedOrganization(
  t: TestApp,
  slug = `org-${randomBase62(8).toLowerCase()}`,
): Promise<SeededOrg> {
  const now = t.clock.now();
  const org = await createOrganization(t.db, { slug, name: `Org ${slug}` }, now);
  const key = await createApiKey(
    t.db,
    { organizationId: org.organizationId, name: "test", createdBy: null },
    now,
  );
  const staff = {} as SeededOrg["staff"];
  for (const role of ["admin", "dpo", "viewer"] as const) {
    const email = `${role}@${slug}.example`;
    const password = `pw-${role}-${randomBase62(12)}`;
    await createStaffUser(t.db, { organizationId: org.organizationId, email, role, password }, now);
    staff[role] = { email, password };
  }
  return { org, apiKey: key.key, apiKeyId: key.apiKeyId, staff };
}

/** Signs a staff member in; returns the headers that authenticate later calls (cookie + CSRF). */
export async function signIn(
  t: TestApp,
  seeded: SeededOrg,
  role: StaffRole,
): Promise<{ cookie: string; csrfToken: string; headers: Record<string, string> }> {
  const res = await t.request({
    method: "POST",
    url: "/api/v1/staff/session",
    payload: { organizationSlug: seeded.org.slug, ...seeded.staff[role] },
  });
  if (res.statusCode !== 201) throw new Error(`sign-in failed: ${res.statusCode} ${res.body}`);
  const cookie = res.cookies.find((c) => c.name === "guard_session");
  if (!cookie) throw new Error("no session cookie");
  const { csrfToken } = res.json() as { csrfToken: string };
  return {
    cookie: cookie.value,
    csrfToken,
    headers: { cookie: `guard_session=${cookie.value}`, "x-csrf-token": csrfToken },
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
