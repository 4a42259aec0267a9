// Idempotency-Key (CONTRACT.md): a retried create returns the original answer instead of creating
// twice. A route opts in with `idempotency` on its RouteSpec and does its writes through
// `tools.write(tx => ...)`. Scope = (organisation, credential, operationId, key): the credential is
// the API key, principal or staff id; a public route names the organisation from the request
// (`publicScope`) and its callers share the credential 'anonymous'.
//
// How "exactly one record" holds across instances: `write` opens a transaction and first inserts
// the key's row (unique on the scope), then runs the work, then stores the response in that row, then
// commits. A concurrent request with the same key blocks on the unique index until the first
// commits, then finds the completed row and replays it; if the first rolled back (an error answer),
// the second proceeds as a first request. Error answers are therefore never stored: a retry of a
// failed request is evaluated afresh (it created nothing). Nothing is kept in memory.
//
// What is kept is kept safely: the request is fingerprinted with an HMAC under a key derived from
// GUARD_SECRETS_KEY, not a plain SHA-256 (a body holding a phone number, as a POS request does,
// could be recovered from a plain hash by trying every number), and the recorded answer is
// sealed (lib/secret-box.ts), since answers carry secrets shown once (withdrawal and link tokens).
// Rows written before this (a 64-hex SHA-256, a plain JSON answer) are still read until they expire.
//
// Expired keys are deleted by a background job on every instance (idempotency-purge.ts calls
// purgeExpiredKeys), never by a request. The statements a keyed request runs are written by hand.
// The inserts are prepared by name (parsed and planned once per connection). The two that look a
// key up (the stored answer, the answer's update) are not: a prepared statement's generic plan is
// made once, and made while the table is small (a new deployment, or one whose keys all expired)
// it is a sequential scan, kept while the table grows by a row per keyed write until the next
// ANALYZE; one lookup then read thousands of rows (bench/README.md, "Write path"). Planned each
// time, the lookup follows the table's size and is a primary-key probe. Concurrent requests' lookups
// are read together, one statement for all of them (lookupGroupOf).
import { createHash, createHmac, hkdfSync } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Queryable } from "../db/database.js";
import type { Config } from "../config.js";
import { canonicalJson } from "../lib/canonical-json.js";
import { SecretBox } from "../lib/secret-box.js";
import type { RegisteredRoute, RouteContext } from "./app.js";
import type { ContractOperation } from "./contract.js";
import type { ContractRequest, OperationId } from "./route-types.js";
import { Failure } from "../lib/failure.js";
import { GroupCommit } from "../lib/group-commit.js";
import type { GroupKeys, WriteGroup } from "../db/write-group.js";

/** How long a key's answer is replayed; after that the key may be used afresh. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;

/**
 * `true` scopes keys by the request's credential. A public route (no credential) must say which
 * organisation scopes its keys, e.g. the `organizationId` of a validated body.
 */
export type IdempotencyOption<O extends OperationId = OperationId> =
  true | { publicScope: (request: ContractRequest<O>) => string };

export interface HandlerTools {
  /**
   * Runs `work` in one transaction (use only `tx` inside it) and resolves to what `work` resolved to.
   * On an idempotent route with an `Idempotency-Key`, that value is recorded in the same
   * transaction as the response body (status: the operation's first 2xx, or what the handler set
   * before calling `write`), so the handler must return it unchanged and call `write` once.
   */
  write<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Writes `item` with other requests' items in one group commit (db/write-group.ts), its key
   * claimed and its answer recorded in the group's transaction; when the group cannot write it,
   * `alone` does, as `write` runs work. Resolves to the item's value either way. The rules of
   * `write` hold: call one of the two once, and return what it resolved to.
   */
  writeInGroup<I, T>(group: WriteGroup<I, T>, item: I, alone: (tx: Queryable) => Promise<T>): Promise<T>;
}

interface Scope {
  organizationId: string;
  credentialId: string;
  operationId: string;
  key: string;
  /** The keyed fingerprint stored with the key. */
  requestHash: string;
  /** The canonical request, for comparing with a row stored before fingerprints were keyed. */
  canonical: string;
  secrets: StoreSecrets;
}

interface StoredResponse {
  status: number;
  body: string;
}

/** Thrown inside `write` when another request with the key completed first; unwinds to a replay. */
class IdempotentReplay extends Error {
  constructor(readonly stored: StoredResponse) {
    super("idempotent replay");
  }
}

const conflict = () =>
  new Failure("CONFLICT", "This Idempotency-Key was already used with a different request");

/** Registration-time check: the contract must declare the header, and a public route a scope. */
export function assertIdempotencySupported(spec: RegisteredRoute, op: ContractOperation): void {
  if (!spec.idempotency) return;
  const headers = op.schema.headers?.properties as Record<string, unknown> | undefined;
  if (!headers?.["idempotency-key"]) {
    throw new Error(`${op.operationId}: idempotency needs the Idempotency-Key header in the contract`);
  }
  if (op.security.length === 0 && spec.idempotency === true) {
    throw new Error(`${op.operationId}: a public route must give idempotency.publicScope`);
  }
}

/** The canonical request: path parameters, query and body. */
const canonicalRequest = (request: FastifyRequest): string =>
  canonicalJson({ params: request.params ?? {}, query: request.query ?? {}, body: request.body ?? null });

const KEYED_HASH_PREFIX = "k1:";

/** The keys that protect what the idempotency store keeps, derived once per configuration. */
class StoreSecrets {
  private readonly hashKey: Buffer;
  readonly box: SecretBox;

  constructor(secretsKey: string) {
    this.hashKey = Buffer.from(
      hkdfSync(
        "sha256",
        Buffer.from(secretsKey, "utf8"),
        Buffer.alloc(0),
        "guard idempotency request v1",
        32,
      ),
    );
    this.box = new SecretBox(secretsKey, "guard idempotency answer v1");
  }

  /** `k1:` + HMAC-SHA-256 of the canonical request. */
  fingerprint(canonical: string): string {
    return KEYED_HASH_PREFIX + createHmac("sha256", this.hashKey).update(canonical, "utf8").digest("hex");
  }
}

const secretsByConfig = new WeakMap<Config, StoreSecrets>();
function storeSecrets(config: Config): StoreSecrets {
  let secrets = secretsByConfig.get(config);
  if (!secrets) {
    secrets = new StoreSecrets(config.secretsKey);
    secretsByConfig.set(config, secrets);
  }
  return secrets;
}

/** The associated data an answer is sealed under: it opens only in its own key's row. */
const answerContext = (scope: Scope) =>
  [scope.organizationId, scope.credentialId, scope.operationId, scope.key].join("\u0000");

function scopeOf(
  ctx: RouteContext,
  request: FastifyRequest,
  operationId: string,
  option: NonNullable<RegisteredRoute["idempotency"]>,
): Scope | undefined {
  const key = request.headers["idempotency-key"];
  if (typeof key !== "string") return undefined;
  const credential = request.credential;
  let organizationId: string;
  let credentialId: string;
  if (credential?.kind === "operator") {
    // The deployment's operator: keys live in the deployment-wide scope ('' is no organisation).
    organizationId = "";
    credentialId = "operator";
  } else if (credential) {
    organizationId = credential.organizationId;
    credentialId =
      credential.kind === "service"
        ? credential.apiKeyId
        : credential.kind === "principal"
          ? credential.principalId
          : credential.staffId;
  } else if (option !== true) {
    organizationId = option.publicScope(request);
    credentialId = "anonymous";
  } else {
    return undefined;
  }
  const secrets = storeSecrets(ctx.config);
  const canonical = canonicalRequest(request);
  return {
    organizationId,
    credentialId,
    operationId,
    key,
    requestHash: secrets.fingerprint(canonical),
    canonical,
    secrets,
  };
}

type StoredRow = {
  request_hash: string;
  response_status: number | null;
  response_body: string | null;
};

interface Lookup {
  scope: Scope;
  /** Rows created after this are within the window. */
  since: number;
}

// Per database: the lookups of requests that arrive while earlier ones are being read leave
// together in one statement (lib/group-commit.ts: no timer, so a lone request waits for nothing).
// Under load that is one statement for many keyed requests instead of one each.
const lookupGroups = new WeakMap<Queryable, GroupCommit<Lookup, StoredRow | undefined>>();

function lookupGroupOf(db: Queryable): GroupCommit<Lookup, StoredRow | undefined> {
  let group = lookupGroups.get(db);
  if (!group) {
    group = new GroupCommit((lookups) => readStoredRows(db, lookups), { maxGroupSize: 256, maxInFlight: 2 });
    lookupGroups.set(db, group);
  }
  return group;
}

/** Each lookup's row (in order): one probe of the primary key per lookup, in one statement. */
async function readStoredRows(db: Queryable, lookups: readonly Lookup[]): Promise<(StoredRow | undefined)[]> {
  if (lookups.length === 1) {
    const { scope, since } = lookups[0]!;
    const [row] = await db.query<StoredRow>(
      `SELECT request_hash, response_status, response_body FROM idempotency_keys
        WHERE organization_id = $1 AND credential_id = $2 AND operation_id = $3 AND idempotency_key = $4
          AND created_at > $5`,
      [scope.organizationId, scope.credentialId, scope.operationId, scope.key, since],
    );
    return [row];
  }
  const found = await db.query<StoredRow & { i: number }>(
    `SELECT l.i::int AS i, k.request_hash, k.response_status, k.response_body
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[])
            WITH ORDINALITY AS l (o, c, op, key, since, i)
       JOIN idempotency_keys k
         ON k.organization_id = l.o AND k.credential_id = l.c AND k.operation_id = l.op
        AND k.idempotency_key = l.key AND k.created_at > l.since`,
    [
      lookups.map((l) => l.scope.organizationId),
      lookups.map((l) => l.scope.credentialId),
      lookups.map((l) => l.scope.operationId),
      lookups.map((l) => l.scope.key),
      lookups.map((l) => l.since),
    ],
  );
  const byIndex = new Map(found.map((row) => [Number(row.i), row]));
  return lookups.map((_, index) => byIndex.get(index + 1));
}

/** The completed answer stored for the scope within the window; CONFLICT if the request differs. */
async function storedResponse(db: Queryable, scope: Scope, now: number): Promise<StoredResponse | undefined> {
  const row = await lookupGroupOf(db).submit({ scope, since: now - IDEMPOTENCY_WINDOW_MS });
  if (!row || row.response_status === null || row.response_body === null) return undefined;
  if (!sameRequest(row.request_hash, scope)) throw conflict();
  const body = SecretBox.isSealed(row.response_body)
    ? scope.secrets.box.open(row.response_body, answerContext(scope))
    : row.response_body;
  return { status: row.response_status, body };
}

/** Whether the stored fingerprint is this request's (keyed, or a plain SHA-256 from before). */
function sameRequest(stored: string, scope: Scope): boolean {
  if (stored.startsWith(KEYED_HASH_PREFIX)) return stored === scope.requestHash;
  return stored === createHash("sha256").update(scope.canonical, "utf8").digest("hex");
}

/** Claims the key inside the write's transaction (an expired claim is taken over). */
async function claim(tx: Queryable, scope: Scope, now: number): Promise<void> {
  const claimed = await tx.query(
    `INSERT INTO idempotency_keys
            (organization_id, credential_id, operation_id, idempotency_key, request_hash, created_at)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (organization_id, credential_id, operation_id, idempotency_key) DO UPDATE
        SET request_hash = excluded.request_hash, created_at = excluded.created_at,
            response_status = NULL, response_body = NULL
      WHERE idempotency_keys.created_at <= $7
     RETURNING idempotency_key`,
    [
      scope.organizationId,
      scope.credentialId,
      scope.operationId,
      scope.key,
      scope.requestHash,
      now,
      now - IDEMPOTENCY_WINDOW_MS,
    ],
    { preparedAs: "idempotency_claim" },
  );
  if (claimed.length > 0) return;
  // Another request with this key committed first (we waited for it on the primary key).
  const stored = await storedResponse(tx, scope, now);
  if (!stored) throw new Error("idempotency key held by a row without a response");
  throw new IdempotentReplay(stored);
}

/** Records the answer in the claimed row, inside the write's transaction. */
async function recordResponse(tx: Queryable, scope: Scope, response: StoredResponse): Promise<void> {
  await tx.query(
    `UPDATE idempotency_keys SET response_status = $5, response_body = $6
      WHERE organization_id = $1 AND credential_id = $2 AND operation_id = $3 AND idempotency_key = $4`,
    [
      scope.organizationId,
      scope.credentialId,
      scope.operationId,
      scope.key,
      response.status,
      scope.secrets.box.seal(response.body, answerContext(scope)),
    ],
  );
}

/** A key in a group commit, with the status its answer is recorded under. */
interface GroupedKey {
  scope: Scope;
  status: number;
}

/**
 * The group commit's key statement: the claim of `claim` (an expired key is taken over) with the
 * answer of `recordResponse`, for many keys in one statement, after the group's writes
 * (db/write-group.ts says why). The lists go as arrays through scalar subqueries, so the
 * statement keeps one generic plan whatever the group's size (gate/store.ts says why).
 */
const groupKeys: GroupKeys<GroupedKey> = {
  identity: ({ scope }) => answerContext(scope),

  async claimAnswered(tx, answers, now) {
    const keys = answers.map(({ key }) => key);
    const stored = await tx.query<{
      organization_id: string;
      credential_id: string;
      operation_id: string;
      idempotency_key: string;
    }>(
      `INSERT INTO idempotency_keys
              (organization_id, credential_id, operation_id, idempotency_key, request_hash, created_at,
               response_status, response_body)
       SELECT o, c, op, k, h, $6, s, b
         FROM unnest((SELECT $1::text[]), (SELECT $2::text[]), (SELECT $3::text[]), (SELECT $4::text[]),
                     (SELECT $5::text[]), (SELECT $8::int[]), (SELECT $9::text[])) AS t (o, c, op, k, h, s, b)
       ON CONFLICT (organization_id, credential_id, operation_id, idempotency_key) DO UPDATE
          SET request_hash = excluded.request_hash, created_at = excluded.created_at,
              response_status = excluded.response_status, response_body = excluded.response_body
        WHERE idempotency_keys.created_at <= $7
       RETURNING organization_id, credential_id, operation_id, idempotency_key`,
      [
        ...scopeColumns(keys),
        keys.map(({ scope }) => scope.requestHash),
        now,
        now - IDEMPOTENCY_WINDOW_MS,
        keys.map(({ status }) => status),
        answers.map(({ key: { scope }, value }) =>
          scope.secrets.box.seal(JSON.stringify(value ?? null), answerContext(scope)),
        ),
      ],
      { preparedAs: "idempotency_claim_answered_group" },
    );
    const identities = new Set(
      stored.map((row) =>
        [row.organization_id, row.credential_id, row.operation_id, row.idempotency_key].join("\u0000"),
      ),
    );
    return keys.map(({ scope }) => identities.has(answerContext(scope)));
  },
};

/** The scope columns of `keys`, one array per column. */
const scopeColumns = (keys: readonly GroupedKey[]): string[][] => [
  keys.map(({ scope }) => scope.organizationId),
  keys.map(({ scope }) => scope.credentialId),
  keys.map(({ scope }) => scope.operationId),
  keys.map(({ scope }) => scope.key),
];

/**
 * Deletes up to `batch` keys whose window ended by `now`, oldest first, and says how many. Keys
 * another session holds (a request taking an expired key over, another instance's purge) are
 * skipped, not waited for: several instances purge at once without blocking each other or a request.
 */
export async function purgeExpiredKeys(db: Queryable, now: number, batch: number): Promise<number> {
  const deleted = await db.query(
    `DELETE FROM idempotency_keys k
      USING (SELECT organization_id, credential_id, operation_id, idempotency_key
               FROM idempotency_keys
              WHERE created_at <= $1
              ORDER BY created_at
              LIMIT $2
                FOR UPDATE SKIP LOCKED) expired
      WHERE k.organization_id = expired.organization_id AND k.credential_id = expired.credential_id
        AND k.operation_id = expired.operation_id AND k.idempotency_key = expired.idempotency_key
     RETURNING 1 AS purged`,
    [now - IDEMPOTENCY_WINDOW_MS, batch],
  );
  return deleted.length;
}

function replay(reply: FastifyReply, stored: StoredResponse): unknown {
  reply.code(stored.status);
  reply.header("idempotent-replayed", "true");
  return JSON.parse(stored.body);
}

/**
 * A handler's tools. `write` is made on first use: most requests (reads, the Consent Gate) never
 * write through it, and building a closure per request is not free on the hot path.
 */
class WriteTools implements HandlerTools {
  /** The answer recorded for the idempotency key, once `write` committed it. */
  recorded: { value: unknown } | undefined;

  constructor(
    private readonly ctx: RouteContext,
    private readonly spec: RegisteredRoute,
    private readonly successStatus: number,
    private readonly reply: FastifyReply,
    private readonly scope: Scope | undefined,
  ) {}

  get write(): HandlerTools["write"] {
    return (work) => this.runWrite(work);
  }

  async writeInGroup<I, T>(
    group: WriteGroup<I, T>,
    item: I,
    alone: (tx: Queryable) => Promise<T>,
  ): Promise<T> {
    const { scope, reply } = this;
    if (scope && this.recorded)
      throw new Error(`${this.spec.operationId}: an idempotent handler writes once`);
    const status = reply.statusCode !== 200 ? reply.statusCode : this.successStatus;
    const outcome = await group.submit(item, scope ? { key: { scope, status }, keys: groupKeys } : undefined);
    if (!outcome.written) return this.runWrite(alone);
    if (scope) this.recorded = { value: outcome.value };
    return outcome.value;
  }

  private runWrite<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    const { ctx, scope, reply } = this;
    if (scope && this.recorded)
      throw new Error(`${this.spec.operationId}: an idempotent handler writes once`);
    return ctx.db.transaction(async (tx) => {
      if (scope) await claim(tx, scope, ctx.clock.now());
      const value = await work(tx);
      if (scope) {
        const status = reply.statusCode !== 200 ? reply.statusCode : this.successStatus;
        await recordResponse(tx, scope, { status, body: JSON.stringify(value ?? null) });
        this.recorded = { value };
      }
      return value;
    });
  }
}

/**
 * Runs a route's handler with its tools: replays a stored answer without running the handler, or
 * gives the handler a `write` that claims the key and records the answer in the same transaction.
 */
export function invokeHandler(
  ctx: RouteContext,
  spec: RegisteredRoute,
  successStatus: number,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<unknown> {
  const scope = spec.idempotency ? scopeOf(ctx, request, spec.operationId, spec.idempotency) : undefined;
  const tools = new WriteTools(ctx, spec, successStatus, reply, scope);
  // Without a key there is nothing to replay or record: the handler's own promise, no layer around it.
  if (!scope) return spec.handler(request, reply, tools);
  return invokeIdempotently(ctx, spec, scope, request, reply, tools);
}

async function invokeIdempotently(
  ctx: RouteContext,
  spec: RegisteredRoute,
  scope: Scope,
  request: FastifyRequest,
  reply: FastifyReply,
  tools: WriteTools,
): Promise<unknown> {
  const now = ctx.clock.now();
  const stored = await storedResponse(ctx.db, scope, now);
  if (stored) return replay(reply, stored);
  try {
    const result = await spec.handler(request, reply, tools);
    const recorded = tools.recorded;
    if (recorded && result !== recorded.value) {
      throw new Error(`${spec.operationId}: an idempotent handler must return what write() resolved to`);
    }
    return result;
  } catch (error) {
    if (error instanceof IdempotentReplay) return replay(reply, error.stored);
    throw error;
  }
}
