// `guard` beside a running server on the embedded database. PGlite has one opener (the data
// directory's lock, db/data-dir-lock.ts), so a CLI started while `guard serve` runs cannot open the
// database itself. Instead the server listens on a Unix domain socket inside its data directory
// (`<data dir>/cli.sock`: the directory is the owner's alone, 0700, and the socket is made 0600
// too), which answers one kind of request: "run this CLI invocation". The server runs the very
// same main() in-process, with its own open database and configuration, the invocation's
// output buffered, and answers {stdout, stderr, exitCode}; the CLI prints them verbatim and exits
// with that code, so a command reads and ends the same either way.
//
// - The CLI forwards only when opening the data directory fails because another process holds it
//   and the socket file exists (context.ts). A socket nobody answers on (a server killed with
//   SIGKILL leaves its file behind) gives today's "in use by another Guard process" message; a
//   killed server's lock is stale anyway, so the CLI usually just opens the database itself.
// - Forwarded invocations run one at a time, in arrival order; a request is at most 1 MiB.
// - Commands that make no sense inside the server are refused there: `serve` (one is running).
//   `migrate` answers as it would on a migrated database ({applied: []}): the server migrated at start.
// - A secret is forwarded only when piped to the CLI: a terminal cannot be (readSecret says so).
//   Relative paths (notice files, key files) are read from the CLI's working directory.
// - Audit entries a forwarded command queues are linked by the server's own sequencer.
// - On PostgreSQL (DATABASE_URL) none of this applies: every process opens its own connections.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { Config } from "../config.js";
import type { DataDirLockedError } from "../db/data-dir-lock.js";
import type { Database } from "../db/database.js";
import type { CliIo } from "./io.js";

/** The socket's name inside the data directory. */
export const CLI_SOCKET_FILE = "cli.sock";

/** The largest request body the socket reads. */
const MAX_REQUEST_BYTES = 1024 * 1024;

/** The running server a forwarded invocation runs in. */
export interface CliHost {
  db: Database;
  config: Config;
  /** Where the server listens (for the `serve` refusal). */
  url: string;
}

interface CliRequest {
  argv: string[];
  /** The CLI's piped stdin, when the command reads a secret; null otherwise or on a terminal. */
  stdin: string | null;
  /** The CLI's working directory: relative paths in argv are read from there. */
  cwd: string;
}

interface CliAnswer {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Thrown by CliContext.db() when a server holds the data directory and has a socket in it. */
export class RunThroughServer extends Error {
  override name = "RunThroughServer";
  constructor(
    readonly socketPath: string,
    readonly locked: DataDirLockedError,
    readonly readsStdin: boolean,
  ) {
    super(locked.message);
  }
}

// What readSecret read from this process's stdin, for a command that forwards after reading it.
let consumedStdin: string | undefined;
export function rememberStdin(text: string): void {
  consumedStdin = text;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8");
}

/** Sends the invocation to the server on `socketPath`; undefined when nothing answers there. */
function post(socketPath: string, request: CliRequest): Promise<CliAnswer | { refused: string } | undefined> {
  const body = JSON.stringify(request);
  return new Promise((resolve) => {
    const req = http.request(
      {
        socketPath,
        path: "/run",
        method: "POST",
        agent: false,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        readAll(res).then(
          (text) => {
            if (res.statusCode !== 200) return resolve({ refused: text.trim() || `HTTP ${res.statusCode}` });
            try {
              resolve(JSON.parse(text) as CliAnswer);
            } catch {
              resolve(undefined);
            }
          },
          () => resolve(undefined),
        );
      },
    );
    // A stale socket file refuses the connection at once (ECONNREFUSED); no file, ENOENT.
    req.on("error", () => resolve(undefined));
    req.end(body);
  });
}

/** The CLI side: runs the invocation through the server and prints its answer; the exit code. */
export async function runThroughServer(signal: RunThroughServer, argv: string[], io: CliIo): Promise<number> {
  let stdin: string | null = null;
  if (io.stdin.kind === "forwarded") stdin = io.stdin.text;
  else if (consumedStdin !== undefined) stdin = consumedStdin;
  else if (signal.readsStdin && !process.stdin.isTTY) stdin = await readAll(process.stdin);
  const answer = await post(signal.socketPath, { argv, stdin, cwd: io.cwd });
  if (answer === undefined) {
    // Nobody listens (a killed server's socket file): the lock's message, as without a server.
    io.err.write(`guard: ${signal.locked.message}\n`);
    return 1;
  }
  if ("refused" in answer) {
    io.err.write(
      `guard: the Guard server using this data directory refused the command: ${answer.refused}\n`,
    );
    return 1;
  }
  io.out.write(answer.stdout);
  io.err.write(answer.stderr);
  return answer.exitCode;
}

function parseRequest(text: string): CliRequest | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const { argv, stdin, cwd } = (value ?? {}) as Partial<Record<keyof CliRequest, unknown>>;
  if (!Array.isArray(argv) || !argv.every((arg) => typeof arg === "string")) return undefined;
  if (stdin !== null && typeof stdin !== "string") return undefined;
  if (typeof cwd !== "string" || !path.isAbsolute(cwd)) return undefined;
  return { argv: argv as string[], stdin, cwd };
}

export interface CliSocket {
  path: string;
  close(): Promise<void>;
}

/**
 * The server side: listens on `<data dir>/cli.sock` and runs each invocation in-process, one at a
 * time. Undefined (and `onError` told) when the socket cannot be made: the server runs without it.
 */
export async function startCliSocket(
  host: CliHost,
  onError: (error: unknown) => void = () => undefined,
): Promise<CliSocket | undefined> {
  const socketPath = path.join(host.config.dataDir, CLI_SOCKET_FILE);
  // This process holds the data directory's lock, so a socket file there is a dead server's.
  fs.rmSync(socketPath, { force: true });

  let queue: Promise<unknown> = Promise.resolve();
  const runInvocation = async (request: CliRequest): Promise<CliAnswer> => {
    const { main } = await import("./main.js");
    let stdout = "";
    let stderr = "";
    const io: CliIo = {
      out: { write: (text: string) => (stdout += text) },
      err: { write: (text: string) => (stderr += text) },
      stdin: { kind: "forwarded", text: request.stdin },
      cwd: request.cwd,
    };
    const exitCode = await main(request.argv, { io, host });
    return { stdout, stderr, exitCode };
  };

  const server = http.createServer((req, res) => {
    const answer = (status: number, body: string, type = "text/plain; charset=utf-8") => {
      res.writeHead(status, { "content-type": type, connection: "close" });
      res.end(body);
    };
    if (req.method !== "POST" || req.url !== "/run") return answer(404, "only POST /run");
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on("end", () => {
      if (tooLarge) return answer(413, `the request is larger than ${MAX_REQUEST_BYTES} bytes`);
      const request = parseRequest(Buffer.concat(chunks).toString("utf8"));
      if (!request) return answer(400, "not a CLI invocation");
      const turn = queue.then(() => runInvocation(request));
      queue = turn.catch(() => undefined);
      turn.then(
        (result) => answer(200, JSON.stringify(result), "application/json"),
        (error: unknown) => {
          onError(error);
          answer(
            500,
            `the command failed inside the server: ${error instanceof Error ? error.message : String(error)}`,
          );
        },
      );
    });
  });

  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socketPath, () => {
        server.off("error", reject);
        resolve();
      });
    });
    // The directory is already 0700; the socket itself is the owner's alone too.
    fs.chmodSync(socketPath, 0o600);
  } catch (error) {
    server.close();
    onError(error);
    return undefined;
  }

  return {
    path: socketPath,
    close: async () => {
      // Stops accepting, lets the invocation in progress answer, then removes the file.
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await queue;
      fs.rmSync(socketPath, { force: true });
    },
  };
}
