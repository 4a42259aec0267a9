// Output conventions of the `guard` CLI: results are JSON on stdout (indented for people, one line
// with --json, so scripts can parse them); notes and errors go to stderr; exit 1 on failure, 2 on
// a usage error.
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

export function createOutput(json: boolean, streams = { out: process.stdout, err: process.stderr }): Output {
  return {
    json,
    result: (value) => streams.out.write(`${JSON.stringify(value, null, json ? undefined : 2)}\n`),
    note: (message) => {
      if (!json) streams.err.write(`${message}\n`);
    },
  };
}

/** Reads a secret: all of stdin when piped, or a prompt with echo off on a terminal. */
export async function readSecret(prompt: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks)
      .toString("utf8")
      .replace(/\r?\n$/, "");
  }
  process.stderr.write(prompt);
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
          process.stderr.write("\n");
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
