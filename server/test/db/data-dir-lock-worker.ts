// A separate process holding (or trying to take) the embedded data directory's lock, driven by
// data-dir-lock.test.ts over the IPC channel: `{ op: "acquire", dataDir, at }` tries once at
// wall-clock time `at` (so several workers race within the same millisecond) and answers
// `{ held: true }` or `{ held: false, error, message }`; `{ op: "release" }` lets the lock go.
import { acquireDataDirLock, type DataDirLock } from "../../src/db/data-dir-lock.js";

type Command =
  { op: "acquire"; dataDir: string; at?: number; heartbeatMs?: number } | { op: "release" } | { op: "exit" };

let lock: DataDirLock | undefined;

process.on("message", (command: Command) => {
  if (command.op === "acquire") {
    // Spin rather than sleep: a timer would wake each worker at a slightly different moment.
    while (command.at !== undefined && Date.now() < command.at);
    try {
      lock = acquireDataDirLock(
        command.dataDir,
        command.heartbeatMs === undefined ? {} : { heartbeatMs: command.heartbeatMs },
      );
      process.send?.({ held: true });
    } catch (error) {
      process.send?.({ held: false, error: (error as Error).name, message: (error as Error).message });
    }
  } else if (command.op === "release") {
    lock?.release();
    lock = undefined;
    process.send?.({ released: true });
  } else {
    process.disconnect();
  }
});
process.send?.({ ready: true });
