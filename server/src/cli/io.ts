// Output conventions of the `guard` CLI: results are JSON on stdout (indented for people, one line
// with --json, so scripts can parse them); notes and errors go to stderr; exit 1 on failure, 2 on
// a usage error. Times are epoch milliseconds in --json; for people, each one also reads as an ISO
// 8601 date (humanTime). Every write goes through the invocation's streams (CliIo), so the same
// commands can run inside a server for a `guard` beside it (cli-socket.ts).
import { AsyncLocalStorage } from "node:async_hooks";
import path from "node:path";
import { rememberStdin } from "./cli-socket.js";

export class CliError extends Error {
  override name = "CliError";
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export interface Output {
  json: boolean;
  result(value: unknown): void;
  note(message: string): void;
}

/** An epoch-ms time as people read it: `2026-11-26T23:40:00.000Z (1795736400000)`. */
export function humanTime(ms: number): string {
  return `${new Date(ms).toISOString()} (${ms})`;
}

/** Date.prototype.toISOString's range: ±8.64e15 ms from 1970. */
const MAX_DATE_MS = 8.64e15;

/**
 * The CLI results' time fields not named `at` or `…At`: an erasure's `scheduledFor`, a log purge
 * report's `now`, `cutoff` and `purgedBefore`, an offline capture's `capturedAtClient`.
 */
const OTHER_TIME_FIELDS: ReadonlySet<string> = new Set([
  "scheduledFor",
  "now",
  "cutoff",
  "purgedBefore",
  "capturedAtClient",
]);

/** Whether a result field named `key` holds a time (epoch ms) when it holds an integer. */
export const isTimeField = (key: string): boolean =>
  key === "at" || /[a-z]At$/.test(key) || OTHER_TIME_FIELDS.has(key);

/**
 * JSON.stringify replacer for the indented (human) result: a time field (isTimeField) holding an
 * integer of epoch ms reads as humanTime. The --json line is left as it is, so scripts keep
 * reading numbers.
 */
function humanTimes(key: string, value: unknown): unknown {
  if (isTimeField(key) && Number.isSafeInteger(value) && Math.abs(value as number) <= MAX_DATE_MS) {
    return humanTime(value as number);
  }
  return value;
}

/** Where a command's text goes: this process's stdout/stderr, or (a forwarded invocation) buffers. */
export interface CliStreams {
  out: { write(text: string): unknown };
  err: { write(text: string): unknown };
}

/**
 * One invocation's surroundings: its output streams, where a secret is read from (this process's
 * stdin, or the text a forwarded invocation carried: null when the client's stdin was a terminal,
 * which cannot be forwarded) and the directory relative paths are read against.
 */
export interface CliIo extends CliStreams {
  stdin: { kind: "process" } | { kind: "forwarded"; text: string | null };
  cwd: string;
}

export function processIo(): CliIo {
  return { out: process.stdout, err: process.stderr, stdin: { kind: "process" }, cwd: process.cwd() };
}

// The invocation running now: main() runs each one inside it, so that code without a context
// (an option's parser reading a file) reads relative paths from the invoker's directory.
const currentInvocation = new AsyncLocalStorage<CliIo>();

export function runInvocation<T>(io: CliIo, body: () => Promise<T>): Promise<T> {
  return currentInvocation.run(io, body);
}

/** A path the operator gave, relative to the directory `guard` was run in. */
export function operatorPath(file: string): string {
  return path.resolve(currentInvocation.getStore()?.cwd ?? process.cwd(), file);
}

export function createOutput(json: boolean, streams: CliStreams = processIo()): Output {
  return {
    json,
    result: (value) =>
      streams.out.write(`${json ? JSON.stringify(value) : JSON.stringify(value, humanTimes, 2)}\n`),
    note: (message) => {
      if (!json) streams.err.write(`${message}\n`);
    },
  };
}

/** Reads a secret: all of stdin when piped, or a prompt with echo off on a terminal. */
export async function readSecret(prompt: string, io: CliIo = processIo()): Promise<string> {
  if (io.stdin.kind === "forwarded") {
    if (io.stdin.text === null) {
      throw new CliError(
        "this command runs through the Guard server using this data directory, which cannot prompt for a secret: " +
          "pipe the secret on stdin (printf '%s' \"$SECRET\" | npx guard …)",
      );
    }
    return io.stdin.text.replace(/\r?\n$/, "");
  }
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of stdin) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    // Kept for the server, should the command be forwarded to one after reading it.
    rememberStdin(text);
    return text.replace(/\r?\n$/, "");
  }
  io.err.write(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = "";
    const onData = (data: Buffer) => {
      for (const char of data.toString("utf8")) {
        if (char === "\r" || char === "\n") {
          stdin.setRawMode(false);
          stdin.pause();
          stdin.off("data", onData);
          io.err.write("\n");
          resolve(value);
          return;
        }
        if (char === "\u0003") {
          stdin.setRawMode(false);
          reject(new CliError("cancelled", 130));
          return;
        }
        value = char === "\u007f" ? value.slice(0, -1) : value + char;
      }
    };
    stdin.on("data", onData);
  });
}
