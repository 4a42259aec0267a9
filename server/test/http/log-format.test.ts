// Log lines for people on a terminal, JSON for collectors: GUARD_LOG_FORMAT (auto, json, pretty).
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, test } from "node:test";
import pino from "pino";
import { ConfigError, loadConfig } from "../../src/config.js";
import { prettyLogStream } from "../../src/http/logging.js";

describe("log format", () => {
  test("GUARD_LOG_FORMAT is auto unless set, and anything but auto, json or pretty is refused", () => {
    const env = { GUARD_DATA_DIR: "/nonexistent-guard-test-dir", GUARD_TOKEN_SECRET: "t".repeat(40) };
    const withSecrets = {
      ...env,
      GUARD_AUDIT_HASH_KEYS: `1:${"a".repeat(40)}`,
      GUARD_SECRETS_KEY: "s".repeat(40),
    };
    assert.equal(loadConfig(withSecrets).logFormat, "auto");
    assert.equal(loadConfig({ ...withSecrets, GUARD_LOG_FORMAT: "json" }).logFormat, "json");
    assert.equal(loadConfig({ ...withSecrets, GUARD_LOG_FORMAT: "pretty" }).logFormat, "pretty");
    assert.throws(
      () => loadConfig({ ...withSecrets, GUARD_LOG_FORMAT: "xml" }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /GUARD_LOG_FORMAT must be one of auto, json, pretty/.test(error.message),
    );
  });

  test("the pretty format is one readable line per event: time, level, message, fields", () => {
    let written = "";
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        written += chunk.toString();
        done();
      },
    });
    const logger = pino({ level: "info" }, prettyLogStream({ colorize: false, destination }));
    logger.warn({ organizationId: "org_123" }, "audit sequencer pass failed");
    assert.match(
      written,
      /^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: audit sequencer pass failed \{"organizationId":"org_123"\}\n$/,
    );
    assert.doesNotMatch(written, /"level":|"pid"|hostname/, "not JSON, no pid or host");
  });
});
