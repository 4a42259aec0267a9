// A fresh embedded data directory gets the migrated snapshot's files unpacked by Node
// (db/snapshot-tar.ts) instead of through PGlite's loadDataDir. The reader takes PGlite's own tar
// format and nothing else: a name that would leave the directory, a link, a truncated or damaged
// archive is refused as a whole. The unpack is renamed into place, so an interrupted one never
// leaves a directory that looks like a database, and what it left is cleared by the next open.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { openDatabase } from "../../src/db/database.js";
import { listMigrations, migrate } from "../../src/db/migrate.js";
import {
  readSnapshotTar,
  removeUnpackLeftovers,
  SnapshotTarError,
  unpackSnapshotTar,
  type SnapshotTar,
} from "../../src/db/snapshot-tar.js";
import { migratedSnapshot } from "../support/harness.js";

/** One ustar header as tinytar writes it (name field only, octal numbers, a valid checksum). */
function header(name: string, options: { type?: string; size?: number; prefix?: string } = {}): Buffer {
  const block = Buffer.alloc(512);
  block.write(name, 0, "utf8");
  block.write("0000600\0", 100, "latin1");
  block.write("0000000\0", 108, "latin1");
  block.write("0000000\0", 116, "latin1");
  block.write(`${(options.size ?? 0).toString(8).padStart(11, "0")}\0`, 124, "latin1");
  block.write("15302231353\0", 136, "latin1");
  block.write(options.type ?? "0", 156, "latin1");
  block.write("ustar\u000000", 257, "latin1");
  if (options.prefix) block.write(options.prefix, 345, "latin1");
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "latin1");
  return block;
}

/** A tar of `entries` (files with their contents, or directories), with the end-of-archive records. */
function tarOf(entries: { name: string; data?: string; type?: string; prefix?: string }[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const data = Buffer.from(entry.data ?? "");
    parts.push(header(entry.name, { type: entry.type, size: data.length, prefix: entry.prefix }));
    parts.push(data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

const PG_VERSION = { name: "/PG_VERSION", data: "18\n" };

function refusal(tar: Buffer): string {
  try {
    readSnapshotTar(tar);
  } catch (error) {
    assert.ok(error instanceof SnapshotTarError, `a SnapshotTarError, not ${String(error)}`);
    return error.message;
  }
  assert.fail("the tar was accepted");
}

/** Every file and directory under `root` (root included) that group or others may use. */
function looseEntries(root: string): string[] {
  const loose: string[] = [];
  const pending = [root];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const stat = fs.lstatSync(next);
    if (stat.mode & 0o077) loose.push(`${(stat.mode & 0o777).toString(8)} ${path.relative(root, next)}`);
    if (stat.isDirectory()) for (const name of fs.readdirSync(next)) pending.push(path.join(next, name));
  }
  return loose;
}

describe("the snapshot tar reader", () => {
  test("reads a small tar of PGlite's format: names without the leading /, files and directories", () => {
    const snapshot = readSnapshotTar(
      tarOf([
        PG_VERSION,
        { name: "/base", type: "5" },
        { name: "/base/1", type: "5" },
        { name: "/base/1/112", data: "x".repeat(700) },
      ]),
    );
    assert.deepEqual(
      snapshot.entries.map((entry) => [entry.name, entry.kind, entry.data.length]),
      [
        ["PG_VERSION", "file", 3],
        ["base", "directory", 0],
        ["base/1", "directory", 0],
        ["base/1/112", "file", 700],
      ],
    );
  });

  test("refuses a name that would leave the directory, or is not a plain relative name", () => {
    for (const name of [
      "../x",
      "/../x",
      "base/../../x",
      "a/./b",
      "base//x",
      "//etc/passwd",
      "a\\..\\b",
      "C:x",
    ]) {
      const message = refusal(tarOf([PG_VERSION, { name, data: "owned" }]));
      assert.match(message, /not a plain relative name/, name);
    }
  });

  test("refuses links, devices, pax and long-name headers, a name prefix and a name filling its field", () => {
    for (const type of ["1", "2", "3", "4", "6", "x", "g", "L", "K"]) {
      assert.match(refusal(tarOf([PG_VERSION, { name: "/link", type }])), /is not a file or directory/, type);
    }
    assert.match(refusal(tarOf([PG_VERSION, { name: "/x", prefix: "base" }])), /prefix/);
    assert.match(refusal(tarOf([PG_VERSION, { name: "/" + "a".repeat(98) }])), /99 characters or more/);
    // 97 characters after the "/" fit: 98 with it, then the NUL.
    readSnapshotTar(tarOf([PG_VERSION, { name: "/" + "a".repeat(97) }]));
  });

  test("refuses entries that contradict each other, and a tar that is not a data directory", () => {
    assert.match(refusal(tarOf([PG_VERSION, { name: "/a" }, { name: "/a" }])), /appears twice/);
    assert.match(refusal(tarOf([PG_VERSION, { name: "/a" }, { name: "/a/b" }])), /below a file/);
    assert.match(
      refusal(tarOf([PG_VERSION, { name: "/a/b" }, { name: "/a" }])),
      /a file where a directory is/,
    );
    assert.match(refusal(tarOf([{ name: "/base", type: "5" }])), /no PG_VERSION/);
    assert.match(refusal(tarOf([])), /no PG_VERSION/);
  });

  test("refuses a truncated or damaged tar", () => {
    const whole = tarOf([
      PG_VERSION,
      { name: "/base", type: "5" },
      { name: "/base/big", data: "y".repeat(3000) },
    ]);
    readSnapshotTar(whole);
    // Inside the first header, inside the last file's data, and right after it (no end record).
    for (const length of [0, 100, 512 * 4 + 1000, 512 * 4 + 3072]) {
      assert.match(refusal(whole.subarray(0, length)), /truncated/, `cut at ${length}`);
    }
    const damaged = Buffer.from(whole);
    // A name byte of the second header (the first file's data is at 512).
    damaged.writeUInt8(damaged.readUInt8(1024 + 2) ^ 0x01, 1024 + 2);
    assert.match(refusal(damaged), /checksum mismatch/);
    const notTar = Buffer.from(whole);
    notTar.write("gnutar", 257, "latin1");
    assert.match(refusal(notTar), /checksum mismatch|not ustar/);
  });
});

describe("unpacking the migrated snapshot into a fresh data directory", () => {
  let snapshot: SnapshotTar;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "guard-snapshot-tar-"));
  before(async () => {
    snapshot = readSnapshotTar(new Uint8Array(await (await migratedSnapshot()).arrayBuffer()));
  });
  after(() => fs.rmSync(scratch, { recursive: true, force: true }));

  test("PGlite's own dump reads whole; the unpacked directory opens with the migrated schema, private", async () => {
    assert.ok(snapshot.entries.length > 100);
    assert.ok(snapshot.entries.some((entry) => entry.name === "PG_VERSION" && entry.kind === "file"));
    const dataDir = path.join(scratch, "opens");
    const db = await openDatabase({ dataDir, freshSnapshot: snapshot });
    try {
      const rows = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM schema_migrations");
      assert.equal(rows[0]!.n, listMigrations().length);
      assert.deepEqual(await migrate(db), [], "nothing left to migrate");
      await db.query("SELECT count(*) FROM organizations");
    } finally {
      await db.close();
    }
    assert.deepEqual(fs.readdirSync(dataDir).sort(), ["pgdata"]);
    if (process.platform !== "win32") assert.deepEqual(looseEntries(dataDir), []);
  });

  test("a database already in the directory is opened as it is, never replaced", async () => {
    const dataDir = path.join(scratch, "existing");
    const first = await openDatabase({ dataDir, freshSnapshot: snapshot });
    await first.query("CREATE TABLE kept (note text)");
    await first.query("INSERT INTO kept VALUES ('still here')");
    await first.close();
    const again = await openDatabase({ dataDir, freshSnapshot: snapshot });
    try {
      assert.deepEqual(await again.query("SELECT note FROM kept"), [{ note: "still here" }]);
    } finally {
      await again.close();
    }
  });

  test("an unpack that fails leaves neither its staging directory nor a target behind", async () => {
    const dataDir = path.join(scratch, "fails");
    const target = path.join(dataDir, "pgdata");
    fs.mkdirSync(target, { recursive: true });
    fs.writeFileSync(path.join(target, "someone-else"), "untouched");
    // The rename onto a directory that is not empty fails after every file was written.
    await assert.rejects(unpackSnapshotTar(snapshot, target), /ENOTEMPTY|EEXIST|EPERM/);
    assert.deepEqual(fs.readdirSync(dataDir), ["pgdata"]);
    assert.deepEqual(fs.readdirSync(target), ["someone-else"]);

    // A write that fails midway (here: a name written twice, which the reader would have refused)
    // stops the writers, and the staging directory goes with everything written so far.
    const writesFail = path.join(scratch, "write-fails");
    fs.mkdirSync(writesFail);
    const files = snapshot.entries.filter((entry) => entry.kind === "file").slice(0, 50);
    const twice: SnapshotTar = { entries: [...files, files[0]!, ...files.slice(1)] };
    await assert.rejects(unpackSnapshotTar(twice, path.join(writesFail, "pgdata")), /EEXIST/);
    assert.deepEqual(fs.readdirSync(writesFail), []);
  });

  test("what an interrupted unpack left is cleared, and the next open starts from the snapshot", async () => {
    const dataDir = path.join(scratch, "interrupted");
    // As a process killed mid-unpack leaves it: a staging directory with part of the files.
    const left = path.join(dataDir, "pgdata.unpacking-999999-deadbeef");
    fs.mkdirSync(path.join(left, "base"), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(left, "PG_VERSION"), "18\n");
    fs.writeFileSync(path.join(left, "base", "half"), "x".repeat(100));
    const unrelated = path.join(dataDir, "pgdata.keep");
    fs.writeFileSync(unrelated, "not an unpack's");
    const db = await openDatabase({ dataDir, freshSnapshot: snapshot });
    try {
      const rows = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM schema_migrations");
      assert.equal(rows[0]!.n, listMigrations().length);
    } finally {
      await db.close();
    }
    assert.ok(!fs.existsSync(left), "the leftover is gone");
    assert.ok(fs.existsSync(unrelated), "only an unpack's leftovers are removed");
    removeUnpackLeftovers(path.join(scratch, "absent", "pgdata")); // a directory that is not there
  });
});
