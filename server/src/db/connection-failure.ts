// What an operator reads when the PostgreSQL server in DATABASE_URL cannot be used: one line naming
// the setting, what went wrong and what to do, instead of a driver stack trace. The password in the
// URL is never repeated.

interface DriverError {
  code?: unknown;
  message?: unknown;
}

/** The host, port, user and database a URL names, for messages (no password). */
function describeTarget(databaseUrl: string): { host: string; port: string; user: string; database: string } {
  const url = new URL(databaseUrl);
  return {
    host: decodeURIComponent(url.hostname) || url.searchParams.get("host") || "localhost",
    port: url.port || "5432",
    user: decodeURIComponent(url.username) || "(the OS user)",
    database: decodeURIComponent(url.pathname.replace(/^\//, "")) || "(the user's name)",
  };
}

/**
 * One line for a failure to connect to (or sign in to) the server in `databaseUrl`; undefined when
 * `error` is not such a failure (a bug, a failed migration), which the caller reports as it is.
 */
export function describeConnectionFailure(error: unknown, databaseUrl: string): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { code, message } = error as DriverError;
  const target = describeTarget(databaseUrl);
  const where = `${target.host}:${target.port}`;
  switch (code) {
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `DATABASE_URL: the host "${target.host}" cannot be resolved; check the host name in the URL`;
    case "ECONNREFUSED":
      return `DATABASE_URL: nothing accepts connections at ${where}; is PostgreSQL running there, and is the port right?`;
    case "ETIMEDOUT":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return `DATABASE_URL: ${where} cannot be reached (${code}); check the host, the port and any firewall between`;
    case "ECONNRESET":
      return `DATABASE_URL: ${where} closed the connection while it was being set up; check the port and the server's TLS settings (sslmode)`;
    case "28P01":
    case "28000":
      return `DATABASE_URL: PostgreSQL at ${where} refused user "${target.user}"; check the user name and password in the URL (and pg_hba.conf)`;
    case "3D000":
      return `DATABASE_URL: the database "${target.database}" does not exist on ${where}; create it (createdb ${target.database}) or fix the URL's path`;
    case "42501":
      return `DATABASE_URL: user "${target.user}" may not create Guard's tables in "${target.database}"; grant it CREATE on the database (or connect as its owner)`;
    default:
      break;
  }
  if (typeof message === "string" && /\b(SSL|TLS|certificate)\b/i.test(message)) {
    return `DATABASE_URL: the TLS connection to ${where} failed (${message}); check sslmode and the server's certificate`;
  }
  return undefined;
}
