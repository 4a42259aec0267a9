// Runs the service: open the database, apply migrations, build the app, listen, and shut down
// cleanly on SIGINT/SIGTERM (readiness goes false first, in-flight requests finish, database closes).
import type { FastifyInstance } from "fastify";
import { createApp } from "./app.js";
import { startAuditSequencer } from "./audit/sequencer.js";
import type { Config } from "./config.js";
import { openDatabase, type Database } from "./db/database.js";
import { planFreshStart } from "./db/fresh-snapshot.js";
import { migrate } from "./db/migrate.js";
import type { SnapshotTar } from "./db/snapshot-tar.js";
import { startIdempotencyPurge } from "./http/idempotency-purge.js";
import { systemClock, type Clock } from "./lib/clock.js";
import { startLogRetentionSweep } from "./log-retention/purge.js";
import { startPartitionMaintenance } from "./log-retention/partitions.js";
import { startPosExpirySweep } from "./offline/pos/expiry.js";
import { startBreachClockSweep } from "./breaches/clocks.js";
import { startRightsClockSweep } from "./rights/clocks.js";
import { WebhookRelayNotifier } from "./notifications/notifier.js";
import { startRetentionSweep } from "./retention/sweep.js";
import { ROUTE_MODULES } from "./routes.js";
import { SecretBox } from "./lib/secret-box.js";
import { WebhookWorker } from "./webhooks/worker.js";
import { startDecisionCompaction } from "./gate/compaction.js";
import { startCliSocket } from "./cli/cli-socket.js";

// The background jobs (below) start this long after the server listens. On the embedded database
// they share the one thread with the requests, and their first runs' queries (on a cold catalog)
// held the first requests back (bench/README.md, "Start-up"); each job runs on its own interval
// from then on.
const BACKGROUND_START_DELAY_MS = 1_000;

/** Starts a background job BACKGROUND_START_DELAY_MS from now; stop() before then cancels the start. */
function startSoon(start: () => { stop(): Promise<void> }): { stop(): Promise<void> } {
  let job: { stop(): Promise<void> } | undefined;
  const timer = setTimeout(() => (job = start()), BACKGROUND_START_DELAY_MS);
  return {
    stop: async () => {
      clearTimeout(timer);
      await job?.stop();
    },
  };
}

export interface RunningServer {
  app: FastifyInstance;
  db: Database;
  url: string;
  stop(): Promise<void>;
}

export async function openConfiguredDatabase(
  config: Config,
  options: {
    fromSnapshot?: SnapshotTar | undefined;
    /** Embedded database only: server settings for this start (openDatabase's `settings`). */
    embeddedSettings?: Record<string, string> | undefined;
  } = {},
): Promise<Database> {
  return openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.databaseUrl ? undefined : config.dataDir,
    ...(options.fromSnapshot ? { freshSnapshot: options.fromSnapshot } : {}),
    ...(options.embeddedSettings && !config.databaseUrl ? { settings: options.embeddedSettings } : {}),
  });
}

export async function startServer(
  config: Config,
  options: {
    clock?: Clock;
    db?: Database;
    /** Serve the demo shop page (`guard serve --seed-demo`). */
    demoShop?: boolean;
    onReady?: (server: RunningServer) => Promise<void> | void;
    /**
     * On the embedded database, run `guard` commands for CLIs beside this server over
     * `<data dir>/cli.sock` (cli/cli-socket.ts); `guard serve` asks for it.
     */
    cliSocket?: boolean;
  } = {},
): Promise<RunningServer> {
  const clock = options.clock ?? systemClock;
  // A fresh embedded data directory starts from the migrated snapshot, as under `guard serve`
  // (db/fresh-snapshot.ts); a database the caller opened is used as it is.
  const start = options.db ? undefined : planFreshStart(config);
  const db = options.db ?? (await openConfiguredDatabase(config, { fromSnapshot: start?.snapshot }));
  try {
    await migrate(db, clock.now());
    await start?.afterMigrations(db);
    const app = await createApp({ config, db, clock, routes: ROUTE_MODULES, demoShop: options.demoShop });
    const address = await app.listen({ host: config.host, port: config.port });
    // Every instance runs a delivery worker; they share the queue safely (webhooks/worker.ts).
    const webhookWorker = new WebhookWorker({
      db,
      clock,
      secrets: new SecretBox(config.secretsKey),
      log: app.serviceLog,
    });
    const webhookDelivery = startSoon(() => {
      webhookWorker.start();
      return webhookWorker;
    });
    // Links the audit entries writers queue into each organisation's chain (audit/sequencer.ts).
    // Started at once, unlike the jobs around it: its interval bounds how long an acknowledged
    // write's entry stays unlinked (entries a killed process left are linked by this first pass),
    // and its stop links what is still queued.
    const auditSequencer = startAuditSequencer({
      db,
      clock,
      onError: (error) => app.serviceLog.error({ err: error }, "audit sequencer pass failed"),
    });
    // Raises dsr/grievance due_soon and overdue events; instances share the work (rights/clocks.ts).
    const rightsClockSweep = startSoon(() =>
      startRightsClockSweep({
        db,
        clock,
        onError: (error) => app.serviceLog.error({ err: error }, "rights clock sweep failed"),
      }),
    );
    // Schedules erasures, sends their 48-hour notices, cancels those a principal's return moved;
    // instances share the work (retention/sweep.ts). The relay notifier is stateless, so this one
    // behaves exactly as the application's.
    const retentionSweep = startSoon(() =>
      startRetentionSweep({
        db,
        clock,
        notifier: new WebhookRelayNotifier(),
        onError: (error) => app.serviceLog.error({ err: error }, "retention sweep failed"),
      }),
    );
    // Raises the breach clocks' due_soon and overdue events; instances share the work (breaches/clocks.ts).
    const breachClockSweep = startSoon(() =>
      startBreachClockSweep({
        db,
        clock,
        onError: (error) => app.serviceLog.error({ err: error }, "breach clock sweep failed"),
      }),
    );
    // Deletes expired idempotency keys; instances share the work (http/idempotency-purge.ts).
    const idempotencyPurge = startSoon(() =>
      startIdempotencyPurge({
        db,
        clock,
        onError: (error) => app.serviceLog.error({ err: error }, "idempotency key purge failed"),
      }),
    );
    // Moves unanswered POS requests past their 72 hours into the staff queue (offline/pos/expiry.ts).
    const posExpirySweep = startSoon(() =>
      startPosExpirySweep({
        db,
        clock,
        onError: (error) => app.serviceLog.error({ err: error }, "POS request expiry sweep failed"),
      }),
    );
    // Purges what each organisation's log-retention policy allows; instances share the work
    // safely (log-retention/purge.ts).
    const logRetentionSweep = startSoon(() =>
      startLogRetentionSweep({
        db,
        clock,
        keys: config.auditKeys,
        onReport: (report) => {
          const purged = Object.entries(report.classes).filter(([, c]) => c.status === "purged");
          if (purged.length > 0) {
            app.serviceLog.info(
              { organizationId: report.organizationId, purged: Object.fromEntries(purged) },
              "log retention purged logs past the organisation's policy",
            );
          }
        },
        onError: (error) => app.serviceLog.error({ err: error }, "log retention sweep failed"),
      }),
    );
    // Creates the high-volume logs' month partitions ahead, at start and daily (log-retention/partitions.ts).
    // (Until its first run, a new month's rows land in the DEFAULT partition, which it then empties.)
    const partitionMaintenance = startSoon(() =>
      startPartitionMaintenance({
        db,
        clock,
        onCreated: (partitions) => app.serviceLog.info({ partitions }, "log partitions created"),
        onError: (error) => app.serviceLog.error({ err: error }, "log partition maintenance failed"),
      }),
    );
    // Moves the gate's decision runs into compact blocks each second (gate/compaction.ts).
    const decisionCompaction = startSoon(() =>
      startDecisionCompaction({
        db,
        clock,
        onError: (error) => app.serviceLog.error({ err: error }, "decision log compaction failed"),
      }),
    );
    const url = address.replace("[::1]", "localhost");
    // The embedded database has one opener, this process: a `guard` beside it runs through here.
    const cliSocket =
      options.cliSocket && config.databaseUrl === undefined
        ? await startCliSocket({ db, config, url }, (error) =>
            app.serviceLog.warn(
              { err: error },
              "the CLI socket failed; `guard` beside this server will not work",
            ),
          )
        : undefined;
    let stopping: Promise<void> | undefined;
    const server: RunningServer = {
      app,
      db,
      url,
      stop: () => {
        stopping ??= (async () => {
          // First, so a command in progress finishes while the database is open.
          await cliSocket?.close();
          await rightsClockSweep.stop();
          await retentionSweep.stop();
          await breachClockSweep.stop();
          await idempotencyPurge.stop();
          await posExpirySweep.stop();
          await decisionCompaction.stop();
          await logRetentionSweep.stop();
          await partitionMaintenance.stop();
          await webhookDelivery.stop();
          await app.close();
          // After the last request, so what it queued is linked before the database closes.
          await auditSequencer.stop();
          await db.close();
        })();
        return stopping;
      },
    };
    await options.onReady?.(server);
    return server;
  } catch (error) {
    await db.close();
    throw error;
  }
}
