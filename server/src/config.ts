// Configuration is parsed and validated once, here; nothing else in the server reads process.env.
// Every setting has one environment variable (and, for the CLI, sometimes a flag that overrides it).
import { createHash, hkdfSync, randomBytes } from "node:crypto";
import fs from "node:fs";
import { isIP } from "node:net";
import path from "node:path";
import { makeDirectory } from "./lib/make-directory.js";

export interface Config {
  /** PostgreSQL server URL; absent means the embedded database (PGlite) in `dataDir`. */
  databaseUrl: string | undefined;
  /** Embedded database and generated secrets live here (`GUARD_DATA_DIR`, default DEFAULT_DATA_DIR). */
  dataDir: string;
  /**
   * Where the migrated empty embedded database that fresh data directories start from is kept
   * (`GUARD_SNAPSHOT_DIR`; default: beside the server code). Set it to a writable directory when
   * the installation is read-only (db/fresh-snapshot.ts).
   */
  snapshotDir: string | undefined;
  host: string;
  port: number;
  production: boolean;
  logLevel: (typeof LOG_LEVELS)[number];
  /**
   * Log every request as it comes and goes (two info lines each). Off by default: on a busy service
   * those lines cost more than the request itself; errors and warnings carry the request id anyway.
   */
  accessLog: boolean;
  /**
   * How log lines look (`GUARD_LOG_FORMAT`): `json`, one object per line, for collectors; `pretty`,
   * a readable line per event; `auto` (default), pretty when standard output is a terminal.
   */
  logFormat: LogFormat;
  /** HMAC key for principal access tokens (HS256). */
  tokenSecret: string;
  /** Principal access-token lifetime; the contract allows at most 60 minutes. */
  tokenTtlMinutes: number;
  sessionTtlHours: number;
  /** Adds `Secure` to the session cookie; turn on whenever the dashboard is served over HTTPS. */
  cookieSecure: boolean;
  bodyLimitBytes: number;
  /** How long a client may take to send a request's headers, then the whole request (body included). */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open between requests. */
  keepAliveTimeoutMs: number;
  /** How long a connection may see no traffic either way (a stalled request, or a reader that stopped). */
  connectionTimeoutMs: number;
  /**
   * The reverse proxies whose `X-Forwarded-For` names the client (`GUARD_TRUST_PROXY`): addresses,
   * CIDR ranges or `loopback`/`linklocal`/`uniquelocal`; false to ignore the header. Handed to
   * Fastify as `trustProxy`.
   */
  trustProxy: false | string[];
  /** `X-Guard-SDK` floors: package name → lowest accepted version. */
  minSdkVersions: Record<string, string>;
  /** Audit-hash HMAC keys by version; new hashes use the highest version. */
  auditKeys: Record<number, string>;
  /**
   * Key material for secrets Guard must read back, such as webhook endpoint secrets (encrypted at
   * rest with AES-256-GCM under a key derived from this).
   */
  secretsKey: string;
  /**
   * Where browsers reach this Guard (`GUARD_PUBLIC_URL`, e.g. `https://guard.example.com`), for the
   * links Guard hands out (the banner install snippet); absent: the request's own scheme and host.
   */
  publicUrl: string | undefined;
  /**
   * SHA-256 of the deployment operator's token (`GUARD_OPERATOR_TOKEN`, 32+ characters), which
   * creates and lists organisations over HTTP (/api/v1/operator/…); undefined turns those routes'
   * credential off. Only the digest is kept in memory.
   */
  operatorTokenDigest: Buffer | undefined;
}

export const LOG_FORMATS = ["auto", "json", "pretty"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** The setting's value, one of `allowed`; `fallback` when unset. */
function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = allowed.find((candidate) => candidate === raw);
  if (value === undefined) throw new ConfigError(`${name} must be one of ${allowed.join(", ")}`);
  return value;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** The shortest secret accepted from the environment (characters). */
export const MIN_SECRET_LENGTH = 32;

/** Where the embedded database and generated secrets live unless GUARD_DATA_DIR or --data-dir says. */
export const DEFAULT_DATA_DIR = "./.guard-data";

/** A whole number with its default and the range it must lie in, written together. */
export interface IntegerRange {
  default: number;
  min: number;
  max: number;
}

interface IntegerSetting extends IntegerRange {
  /** The environment variable. */
  env: string;
}

/** The integer settings: each one's variable, default and range, written only here. */
export const INTEGER_SETTINGS = {
  port: { env: "PORT", default: 8080, min: 0, max: 65535 },
  // The contract allows principal access tokens at most 60 minutes.
  tokenTtlMinutes: { env: "GUARD_TOKEN_TTL_MINUTES", default: 15, min: 1, max: 60 },
  sessionTtlHours: { env: "GUARD_SESSION_TTL_HOURS", default: 12, min: 1, max: 24 * 30 },
  bodyLimitBytes: { env: "GUARD_BODY_LIMIT_BYTES", default: 1024 * 1024, min: 1024, max: 64 * 1024 * 1024 },
  // Slow clients are cut off (slowloris): headers and the whole request each have a deadline.
  headersTimeoutMs: { env: "GUARD_HEADERS_TIMEOUT_MS", default: 20_000, min: 1000, max: 600_000 },
  requestTimeoutMs: { env: "GUARD_REQUEST_TIMEOUT_MS", default: 60_000, min: 1000, max: 3_600_000 },
  // Above the 60 s idle timeout of common load balancers, so the balancer closes an idle
  // connection first and never sends a request on one Guard is closing.
  keepAliveTimeoutMs: { env: "GUARD_KEEP_ALIVE_TIMEOUT_MS", default: 72_000, min: 1000, max: 600_000 },
  connectionTimeoutMs: { env: "GUARD_CONNECTION_TIMEOUT_MS", default: 120_000, min: 1000, max: 3_600_000 },
} as const satisfies Record<string, IntegerSetting>;

/** The number `raw` spells when it is a whole number in the range; undefined otherwise. */
export function integerInRange(range: IntegerRange, raw: string): number | undefined {
  const value = Number(raw);
  return Number.isInteger(value) && value >= range.min && value <= range.max ? value : undefined;
}

function integer(env: Env, setting: IntegerSetting): number {
  const raw = env[setting.env];
  if (raw === undefined || raw === "") return setting.default;
  const value = integerInRange(setting, raw);
  if (value === undefined) {
    throw new ConfigError(
      `${setting.env} must be an integer from ${setting.min} to ${setting.max} (got ${JSON.stringify(raw)})`,
    );
  }
  return value;
}

/** The request deadlines; the headers' cannot be later than the whole request's. */
function requestTimeouts(env: Env) {
  const timeouts = {
    headersTimeoutMs: integer(env, INTEGER_SETTINGS.headersTimeoutMs),
    requestTimeoutMs: integer(env, INTEGER_SETTINGS.requestTimeoutMs),
    keepAliveTimeoutMs: integer(env, INTEGER_SETTINGS.keepAliveTimeoutMs),
    connectionTimeoutMs: integer(env, INTEGER_SETTINGS.connectionTimeoutMs),
  };
  if (timeouts.headersTimeoutMs > timeouts.requestTimeoutMs) {
    throw new ConfigError(
      `GUARD_HEADERS_TIMEOUT_MS (${timeouts.headersTimeoutMs}) must not exceed GUARD_REQUEST_TIMEOUT_MS (${timeouts.requestTimeoutMs})`,
    );
  }
  return timeouts;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (["1", "true", "yes", "on"].includes(raw.toLowerCase())) return true;
  if (["0", "false", "no", "off"].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false (got ${JSON.stringify(raw)})`);
}

function parseSdkFloors(raw: string | undefined): Record<string, string> {
  const floors: Record<string, string> = {};
  if (!raw) return floors;
  for (const entry of raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const at = entry.lastIndexOf("=");
    const name = entry.slice(0, at);
    const version = entry.slice(at + 1);
    if (at <= 0 || !/^\d+\.\d+\.\d+$/.test(version)) {
      throw new ConfigError(
        `GUARD_MIN_SDK_VERSIONS entries look like @guard/server=2.0.0 (got ${JSON.stringify(entry)})`,
      );
    }
    floors[name] = version;
  }
  return floors;
}

const PROXY_RANGE_NAMES = ["loopback", "linklocal", "uniquelocal"];

/**
 * GUARD_TRUST_PROXY: empty or false, or a comma-separated list of addresses, CIDR ranges and range
 * names. Neither `true` (every peer could then name any client) nor a hop count (Fastify cannot
 * check the peer against a count, so it trusts no one) is accepted: both look like they work and
 * do not.
 */
function parseTrustProxy(raw: string | undefined): false | string[] {
  if (raw === undefined || ["", "0", "false", "no", "off"].includes(raw.trim().toLowerCase())) return false;
  const entries = raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address = "", prefix, ...rest] = entry.split("/");
    const family = isIP(address);
    const bits = family === 4 ? 32 : 128;
    const validPrefix = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
    if (PROXY_RANGE_NAMES.includes(entry) || (family !== 0 && validPrefix && rest.length === 0)) continue;
    throw new ConfigError(
      `GUARD_TRUST_PROXY lists the proxies trusted to name the client: addresses, CIDR ranges or ${PROXY_RANGE_NAMES.join("/")}, comma-separated, or false (got ${JSON.stringify(entry)})`,
    );
  }
  return entries.length > 0 ? entries : false;
}

function parseAuditKeys(raw: string): Record<number, string> {
  const keys: Record<number, string> = {};
  for (const entry of raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const colon = entry.indexOf(":");
    const version = Number(entry.slice(0, colon));
    const secret = entry.slice(colon + 1);
    if (colon <= 0 || !Number.isInteger(version) || version < 1 || secret.length < MIN_SECRET_LENGTH) {
      throw new ConfigError(
        `GUARD_AUDIT_HASH_KEYS looks like 1:<secret of ${MIN_SECRET_LENGTH}+ chars>,2:<secret> (version:secret, comma-separated)`,
      );
    }
    keys[version] = secret;
  }
  if (Object.keys(keys).length === 0) throw new ConfigError("GUARD_AUDIT_HASH_KEYS holds no key");
  return keys;
}

interface GeneratedSecrets {
  tokenSecret: string;
  auditKeys: Record<number, string>;
  /** Absent in files written before it existed; added on the next start. */
  secretsKey?: string;
}

/**
 * Embedded mode needs no set-up: secrets missing from the environment are generated once into
 * `<dataDir>/secrets.json` (mode 0600) and reused on every start, so tokens and audit hashes stay
 * valid across restarts.
 */
/**
 * The secrets file as Guard wrote it, or a ConfigError naming the file. Never regenerated when
 * damaged: its keys sign every token, key every audit hash and seal every stored webhook secret,
 * so new ones would silently orphan what the old ones protect.
 */
function readSecretsFile(file: string): GeneratedSecrets {
  const refuse = (problem: string) =>
    new ConfigError(
      `${file} ${problem}: restore it from a backup of the data directory (new secrets would invalidate tokens, audit hashes and stored webhook secrets)`,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (error) {
    throw refuse(
      error instanceof SyntaxError ? "is not valid JSON" : `cannot be read (${(error as Error).message})`,
    );
  }
  const secrets = parsed as Partial<GeneratedSecrets> | null;
  const isSecret = (value: unknown) => typeof value === "string" && value.length >= MIN_SECRET_LENGTH;
  if (typeof secrets !== "object" || secrets === null || !isSecret(secrets.tokenSecret))
    throw refuse(`has no tokenSecret of ${MIN_SECRET_LENGTH}+ characters`);
  const keys = secrets.auditKeys;
  if (
    typeof keys !== "object" ||
    keys === null ||
    Object.keys(keys).length === 0 ||
    Object.entries(keys).some(([version, key]) => !/^[1-9]\d*$/.test(version) || !isSecret(key))
  )
    throw refuse(`has no auditKeys of the form {"1": "<${MIN_SECRET_LENGTH}+ characters>"}`);
  if (secrets.secretsKey !== undefined && !isSecret(secrets.secretsKey))
    throw refuse(`has a secretsKey shorter than ${MIN_SECRET_LENGTH} characters`);
  return secrets as GeneratedSecrets;
}

function loadOrCreateSecrets(dataDir: string): Required<GeneratedSecrets> {
  const file = path.join(dataDir, "secrets.json");
  if (fs.existsSync(file)) {
    const existing = readSecretsFile(file);
    if (!existing.secretsKey) {
      // Older data directories predate this secret: add it, keeping every other secret as it was.
      // Derived (not random) so two processes starting at once on one directory write the same value.
      existing.secretsKey = Buffer.from(
        hkdfSync("sha256", existing.tokenSecret, Buffer.alloc(0), "guard secrets key v1", 32),
      ).toString("base64url");
      fs.writeFileSync(file, JSON.stringify(existing, null, 2), { mode: 0o600 });
    }
    return { ...existing, secretsKey: existing.secretsKey };
  }
  // Private from the start: the embedded database will live here too (db/data-dir-permissions.ts).
  makeDirectory(dataDir, 0o700);
  const secrets: Required<GeneratedSecrets> = {
    tokenSecret: randomBytes(32).toString("base64url"),
    auditKeys: { 1: randomBytes(32).toString("base64url") },
    secretsKey: randomBytes(32).toString("base64url"),
  };
  fs.writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600, flag: "wx" });
  return secrets;
}

export interface ConfigOverrides {
  dataDir?: string;
  port?: number;
  databaseUrl?: string;
}

function parsePublicUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw.trim() === "") return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw.trim());
  } catch {
    url = undefined;
  }
  if (!url || !["http:", "https:"].includes(url.protocol) || url.search || url.hash || url.username) {
    throw new ConfigError(
      `GUARD_PUBLIC_URL must be the http(s) URL browsers reach Guard at, e.g. https://guard.example.com (got ${JSON.stringify(raw)})`,
    );
  }
  return url.href.replace(/\/+$/, "");
}

const DATABASE_URL_EXAMPLE = "postgres://guard:<password>@db.example.com:5432/guard";

/**
 * A PostgreSQL connection URL, or undefined for the embedded database. Anything else is refused
 * here, naming the setting, rather than failing later as a DNS lookup of part of the string or a
 * connection attempt to PostgreSQL's default port.
 */
function checkDatabaseUrl(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(
      `DATABASE_URL is not a URL; set it like ${DATABASE_URL_EXAMPLE}, or unset it to use the embedded database`,
    );
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    throw new ConfigError(
      `DATABASE_URL must be a postgres:// or postgresql:// URL (it is ${url.protocol}//…): Guard runs on PostgreSQL only; unset it to use the embedded database`,
    );
  }
  return withExplicitSslMode(raw, url);
}

/**
 * node-postgres verifies the server's certificate for `sslmode=prefer|require|verify-ca` exactly as
 * for `verify-full`, and prints a nine-line warning at start saying so. Naming verify-full keeps
 * that behaviour (the stricter one) without the warning. `uselibpqcompat=true` asks for libpq's
 * weaker meanings instead and is left as it is.
 */
function withExplicitSslMode(raw: string, url: URL): string {
  const mode = url.searchParams.get("sslmode");
  if (!mode || !["prefer", "require", "verify-ca"].includes(mode)) return raw;
  if (url.searchParams.get("uselibpqcompat") === "true") return raw;
  return raw.replace(/([?&]sslmode=)(prefer|require|verify-ca)(?=&|$)/, "$1verify-full");
}

function operatorTokenDigest(raw: string | undefined): Buffer | undefined {
  if (!raw) return undefined;
  if (raw.length < MIN_SECRET_LENGTH) {
    throw new ConfigError(
      `GUARD_OPERATOR_TOKEN must be at least ${MIN_SECRET_LENGTH} characters (for example: openssl rand -base64 32)`,
    );
  }
  return createHash("sha256").update(raw, "utf8").digest();
}

/** Reads the environment once. Throws `ConfigError` naming the variable when a value is wrong. */
export function loadConfig(env: Env = process.env, overrides: ConfigOverrides = {}): Config {
  const databaseUrl = checkDatabaseUrl(overrides.databaseUrl ?? (env.DATABASE_URL || undefined));
  const dataDir = path.resolve(overrides.dataDir ?? (env.GUARD_DATA_DIR || DEFAULT_DATA_DIR));
  const production = env.NODE_ENV === "production";
  const logLevel = LOG_LEVELS.find((level) => level === (env.GUARD_LOG_LEVEL || "info"));
  if (!logLevel) throw new ConfigError(`GUARD_LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}`);

  let tokenSecret = env.GUARD_TOKEN_SECRET;
  let auditKeys = env.GUARD_AUDIT_HASH_KEYS ? parseAuditKeys(env.GUARD_AUDIT_HASH_KEYS) : undefined;
  if (tokenSecret !== undefined && tokenSecret.length < MIN_SECRET_LENGTH) {
    throw new ConfigError(`GUARD_TOKEN_SECRET must be at least ${MIN_SECRET_LENGTH} characters`);
  }
  let secretsKey = env.GUARD_SECRETS_KEY;
  if (secretsKey !== undefined && secretsKey.length < MIN_SECRET_LENGTH) {
    throw new ConfigError(`GUARD_SECRETS_KEY must be at least ${MIN_SECRET_LENGTH} characters`);
  }
  if (!tokenSecret || !auditKeys || !secretsKey) {
    if (databaseUrl) {
      // Several instances share one PostgreSQL server, so they must share these secrets too;
      // a per-instance generated secret would make tokens valid on one instance only, and stored
      // webhook secrets readable by one instance only.
      throw new ConfigError(
        `With DATABASE_URL, set GUARD_TOKEN_SECRET (${MIN_SECRET_LENGTH}+ characters), GUARD_AUDIT_HASH_KEYS (1:<secret>) and GUARD_SECRETS_KEY (${MIN_SECRET_LENGTH}+ characters) so every instance shares them`,
      );
    }
    const generated = loadOrCreateSecrets(dataDir);
    tokenSecret ||= generated.tokenSecret;
    auditKeys ??= generated.auditKeys;
    secretsKey ||= generated.secretsKey;
  }

  return {
    databaseUrl,
    dataDir,
    snapshotDir: env.GUARD_SNAPSHOT_DIR ? path.resolve(env.GUARD_SNAPSHOT_DIR) : undefined,
    host: env.GUARD_HOST || "127.0.0.1",
    port: overrides.port ?? integer(env, INTEGER_SETTINGS.port),
    production,
    logLevel,
    accessLog: boolean(env, "GUARD_ACCESS_LOG", false),
    logFormat: oneOf(env, "GUARD_LOG_FORMAT", LOG_FORMATS, "auto"),
    tokenSecret,
    tokenTtlMinutes: integer(env, INTEGER_SETTINGS.tokenTtlMinutes),
    sessionTtlHours: integer(env, INTEGER_SETTINGS.sessionTtlHours),
    cookieSecure: boolean(env, "GUARD_COOKIE_SECURE", production),
    bodyLimitBytes: integer(env, INTEGER_SETTINGS.bodyLimitBytes),
    ...requestTimeouts(env),
    trustProxy: parseTrustProxy(env.GUARD_TRUST_PROXY),
    minSdkVersions: parseSdkFloors(env.GUARD_MIN_SDK_VERSIONS),
    auditKeys,
    secretsKey,
    publicUrl: parsePublicUrl(env.GUARD_PUBLIC_URL),
    operatorTokenDigest: operatorTokenDigest(env.GUARD_OPERATOR_TOKEN),
  };
}

/**
 * A complete configuration for tests and tools that build an app in-process: the defaults, with
 * fixed secrets (so nothing is written to disk), a free port and no logs.
 */
export function testConfig(overrides: Partial<Config> = {}): Config {
  const config = loadConfig({
    GUARD_DATA_DIR: ".guard-data-test",
    GUARD_TOKEN_SECRET: "test-token-secret-test-token-secret-0123456789",
    GUARD_AUDIT_HASH_KEYS: "1:test-audit-secret-test-audit-secret-0123456789",
    GUARD_SECRETS_KEY: "test-secrets-key-test-secrets-key-0123456789",
    GUARD_LOG_LEVEL: "silent",
    PORT: "0",
  });
  return { ...config, ...overrides };
}
