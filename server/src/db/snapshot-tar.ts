// Reads and unpacks the migrated snapshot a fresh embedded data directory starts from
// (fresh-snapshot.ts) with Node's own file calls. PGlite's `loadDataDir` wrote the same files
// through its WebAssembly file layer, about a second of a cold start (bench/README.md, "Start-up").
//
// The tar is PGlite's `dumpDataDir("none")` (the tinytar library): one 512-byte header per entry,
// the name in the 100-byte name field with a leading "/", typeflag "0" (file) or "5" (directory),
// sizes in octal, two zero records at the end; no prefix field, long-name or pax headers (tinytar
// cuts a longer name short instead), links or devices. The reader accepts exactly that and refuses
// anything else, so a file that is not such a snapshot is never half-read into a database.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

const BLOCK = 512;
const NAME_FIELD = 100;

export class SnapshotTarError extends Error {
  override name = "SnapshotTarError";
}

export interface SnapshotEntry {
  /** Relative, "/"-separated, checked: no empty, "." or ".." component. */
  name: string;
  kind: "file" | "directory";
  /** A view into the tar (files only). */
  data: Uint8Array;
}

/** A snapshot whose every header, name and size was checked (readSnapshotTar). */
export interface SnapshotTar {
  entries: readonly SnapshotEntry[];
}

/** Parses and checks a whole snapshot tar; throws SnapshotTarError on anything unexpected. */
export function readSnapshotTar(tar: Uint8Array): SnapshotTar {
  const entries: SnapshotEntry[] = [];
  const kinds = new Map<string, SnapshotEntry["kind"]>();
  // Every directory a name implies, listed or not: no file may later take one of these names.
  const parents = new Set<string>();
  let offset = 0;
  for (;;) {
    if (offset + BLOCK > tar.length)
      throw new SnapshotTarError(`truncated at byte ${offset}: no end-of-archive record`);
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) break;
    checkHeader(header, offset);
    const name = entryName(header, offset);
    const typeflag = header[156];
    const size = octal(header.subarray(124, 136), "size", offset);
    const kind = typeflag === 0x30 || typeflag === 0 ? "file" : typeflag === 0x35 ? "directory" : undefined;
    if (!kind)
      throw new SnapshotTarError(
        `${name}: entry type ${JSON.stringify(String.fromCharCode(typeflag ?? 0))} is not a file or directory`,
      );
    if (kind === "directory" && size !== 0)
      throw new SnapshotTarError(`${name}: a directory with ${size} bytes of data`);
    if (kinds.has(name)) throw new SnapshotTarError(`${name}: appears twice`);
    if (kind === "file" && parents.has(name))
      throw new SnapshotTarError(`${name}: a file where a directory is`);
    for (let cut = name.indexOf("/"); cut !== -1; cut = name.indexOf("/", cut + 1)) {
      const parent = name.slice(0, cut);
      if (kinds.get(parent) === "file") throw new SnapshotTarError(`${name}: below a file`);
      parents.add(parent);
    }
    const start = offset + BLOCK;
    const end = start + size;
    if (end > tar.length) throw new SnapshotTarError(`${name}: truncated (${size} bytes declared)`);
    kinds.set(name, kind);
    entries.push({ name, kind, data: tar.subarray(start, end) });
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
  }
  if (kinds.get("PG_VERSION") !== "file")
    throw new SnapshotTarError("not a PostgreSQL data directory (no PG_VERSION)");
  return { entries };
}

/**
 * Unpacks `snapshot` as the directory `target`, which must not exist: into a new sibling directory
 * first, renamed to `target` once every file is written, so an interrupted unpack never leaves a
 * `target` that looks like a database. Directories 0700, files 0600 (whatever the tar says): the
 * data directory's files are its owner's alone (data-dir-permissions.ts). The sibling is named
 * `<target>.unpacking-…` (removeUnpackLeftovers clears those an interrupted unpack left).
 */
export async function unpackSnapshotTar(snapshot: SnapshotTar, target: string): Promise<void> {
  const staging = `${target}${UNPACKING}${process.pid}-${randomBytes(4).toString("hex")}`;
  fs.mkdirSync(staging, { mode: 0o700 });
  try {
    // The directories first, in one pass (tinytar lists a directory before what it holds; a tar
    // that does not still unpacks), then the files.
    const made = new Set<string>([staging]);
    const files: { file: string; data: Uint8Array }[] = [];
    for (const entry of snapshot.entries) {
      const file = path.join(staging, ...entry.name.split("/"));
      const folder = entry.kind === "directory" ? file : path.dirname(file);
      if (!made.has(folder)) {
        fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
        made.add(folder);
      }
      if (entry.kind === "file") files.push({ file, data: entry.data });
    }
    await writeAll(files);
    fs.renameSync(staging, target);
  } catch (error) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}

// Creating a file is most of an unpack's cost, and its kernel work is slow when other work has
// just deleted many files (ext4 scans past recently freed inodes). Four writers, one per libuv
// thread, cost little on a quiet machine and save most when other processes hold the CPUs
// (bench/README.md, "Start-up", has the figures).
const WRITERS = 4;

async function writeAll(files: readonly { file: string; data: Uint8Array }[]): Promise<void> {
  let next = 0;
  let failed = false;
  const writer = async (): Promise<void> => {
    while (!failed && next < files.length) {
      const { file, data } = files[next++]!;
      try {
        // "wx": never through something already there (the staging directory is this call's own).
        await fs.promises.writeFile(file, data, { flag: "wx", mode: 0o600 });
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  // Every writer has stopped before the caller removes the staging directory.
  const results = await Promise.allSettled(Array.from({ length: WRITERS }, writer));
  const failure = results.find((result) => result.status === "rejected");
  if (failure) throw failure.reason;
}

const UNPACKING = ".unpacking-";

/** Removes what interrupted unpacks into `target` left beside it (call while holding its lock). */
export function removeUnpackLeftovers(target: string): void {
  const folder = path.dirname(target);
  const prefix = path.basename(target) + UNPACKING;
  let names: string[];
  try {
    names = fs.readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith(prefix)) fs.rmSync(path.join(folder, name), { recursive: true, force: true });
  }
}

/** The header's checksum: every byte summed, the checksum field itself counted as spaces. */
function checkHeader(header: Uint8Array, offset: number): void {
  let sum = 0;
  for (let i = 0; i < BLOCK; i += 1) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
  if (octal(header.subarray(148, 156), "checksum", offset) !== sum)
    throw new SnapshotTarError(`header at byte ${offset}: checksum mismatch`);
  if (latin1(header.subarray(257, 262)) !== "ustar")
    throw new SnapshotTarError(`header at byte ${offset}: not ustar`);
  // tinytar leaves the prefix empty; a name split across it comes from another writer.
  if (header[345] !== 0)
    throw new SnapshotTarError(`header at byte ${offset}: a name prefix (not PGlite's format)`);
}

function entryName(header: Uint8Array, offset: number): string {
  const field = header.subarray(0, NAME_FIELD);
  const length = field.indexOf(0);
  // tinytar keeps 99 characters and a NUL: a name that fills them may have been cut short.
  if (length === -1 || length >= NAME_FIELD - 1)
    throw new SnapshotTarError(`header at byte ${offset}: a name of ${NAME_FIELD - 1} characters or more`);
  const raw = Buffer.from(field.subarray(0, length)).toString("utf8");
  const name = raw.startsWith("/") ? raw.slice(1) : raw;
  const parts = name.split("/");
  if (parts.some((part) => part === "" || part === "." || part === ".." || /[\\:]/.test(part)))
    throw new SnapshotTarError(`${JSON.stringify(raw)}: not a plain relative name`);
  return name;
}

/** An octal field: digits, then NULs or spaces (the base-256 form is refused). */
function octal(field: Uint8Array, what: string, offset: number): number {
  const text = latin1(field)
    .replace(/[\0 ]+$/, "")
    .replace(/^ +/, "");
  if (!/^[0-7]{1,12}$/.test(text))
    throw new SnapshotTarError(`header at byte ${offset}: the ${what} is not octal`);
  return parseInt(text, 8);
}

function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("latin1");
}
