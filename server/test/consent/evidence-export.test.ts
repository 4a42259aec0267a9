// GET /api/v1/staff/exports/consent-evidence: every consent given in [from, to) as RFC 4180 CSV,
// streamed a page at a time, with the formula-injection guard and the row count header.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import type { Queryable } from "../../src/db/database.js";
import {
  consentEvidenceCsv,
  csvCell,
  EVIDENCE_COLUMNS,
  evidenceReadable,
} from "../../src/consent/evidence-export.js";
import { assertApiError } from "../support/api-error.js";
import {
  anonymousConsent,
  principal,
  publishTestNotice,
  recordConsent,
} from "../support/consent-fixtures.js";
import { parseCsv } from "../support/csv.js";
import { seedOrganization, signIn, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";
import { ok, staffClient } from "../support/staff-client.js";

const EXPORT = "/api/v1/staff/exports/consent-evidence";
const HEADER = `${EVIDENCE_COLUMNS.join(",")}\r\n`;
const iso = (ms: number) => new Date(ms).toISOString();

async function collect(chunks: AsyncIterable<string>): Promise<string> {
  let text = "";
  for await (const chunk of chunks) text += chunk;
  return text;
}

/** A GET on a listening server: the status, the bytes received, and how the body ended. */
function download(port: number, path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string; complete: boolean }>((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port, path, headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode!, body, complete: res.complete }));
      res.on("error", () => resolve({ status: res.statusCode!, body, complete: false }));
      res.on("aborted", () => resolve({ status: res.statusCode!, body, complete: false }));
    });
    req.on("error", reject);
  });
}

describe("consent evidence export", () => {
  let t: TestApp;
  let acme: SeededOrg;
  let other: SeededOrg;
  let bulk: SeededOrg;
  let noticeId: string;
  let bulkNoticeId: string;
  let staff: ReturnType<typeof staffClient>;

  before(async () => {
    t = await startTestApp();
    acme = await seedOrganization(t);
    other = await seedOrganization(t);
    bulk = await seedOrganization(t);
    noticeId = (
      await publishTestNotice(t, acme, {
        itemized: [
          { purpose: '=HYPERLINK("http://evil.example","a, b")', personalDataDescription: "Formula." },
          { purpose: "Multi\r\nline", personalDataDescription: "Line breaks." },
          { purpose: "Plain", personalDataDescription: "Nothing special." },
        ],
      })
    ).noticeId;
    await publishTestNotice(t, other);
    bulkNoticeId = (await publishTestNotice(t, bulk)).noticeId;
    staff = staffClient(t);
  });
  after(() => t.close());

  const exportCsv = (
    seeded: SeededOrg,
    from: number,
    to: number,
    role: "admin" | "dpo" | "viewer" = "viewer",
  ) => staff(seeded, role, "GET", `${EXPORT}?from=${from}&to=${to}`);

  /** `n` consents of distinct principals given at 100 000 + i ms, inserted as the store writes them. */
  async function seedConsents(seeded: SeededOrg, n: number): Promise<void> {
    const org = seeded.org.organizationId;
    await t.db.query(
      `INSERT INTO principals (organization_id, principal_id, external_id, created_at)
       SELECT $1, 'prn_bulk' || i, 'ext-' || i, 0 FROM generate_series(1, $2::int) AS i`,
      [org, n],
    );
    await t.db.query(
      `INSERT INTO consents (organization_id, consent_id, principal_id, notice_id, notice_version, purpose,
         data_types, source, given_at, audit_hash, audit_key_version)
       SELECT $1, 'cns_' || lpad(i::text, 6, '0'), 'prn_bulk' || i, $3, 1, 'Account', '["email"]'::jsonb,
         'direct', 100000 + i, encode(sha256(convert_to('cns_' || i, 'UTF8')), 'hex'), 1
       FROM generate_series(1, $2::int) AS i`,
      [org, n, bulkNoticeId],
    );
  }

  test("one row per consent in given order, columns exact, quoted and formula-guarded", async () => {
    await principal(t, acme, "@admin", "one@example.com");
    const start = t.clock.now();
    const formula = ok<{ consentId: string; auditHash: string }>(
      await recordConsent(t, acme, {
        email: "one@example.com",
        noticeId,
        purpose: '=HYPERLINK("http://evil.example","a, b")',
        dataTypes: ["-email", 'name "given"'],
      }),
      201,
    );
    t.clock.advance(1000);
    const guest = ok<{ consentId: string }>(
      await anonymousConsent(t, {
        organizationId: acme.org.organizationId,
        anonymousId: "+guest-1",
        noticeId,
        purpose: "Multi\r\nline",
        dataTypes: ["email"],
      }),
      201,
    );
    t.clock.advance(1000);
    const withdrawnAt = t.clock.now();
    const res = await t.request({
      method: "DELETE",
      url: `/cm/v1/consent/${formula.consentId}`,
      headers: { authorization: `Bearer ${acme.apiKey}` },
    });
    assert.equal(res.statusCode, 200, res.body);
    const [stored] = await t.db.query<{ principal_id: string; audit_hash: string; guest_hash: string }>(
      `SELECT c.principal_id, c.audit_hash, g.audit_hash AS guest_hash FROM consents c, consents g
        WHERE c.organization_id = $1 AND c.consent_id = $2 AND g.organization_id = $1 AND g.consent_id = $3`,
      [acme.org.organizationId, formula.consentId, guest.consentId],
    );

    const answer = await exportCsv(acme, start, start + 2000);
    assert.equal(answer.statusCode, 200, answer.body);
    assert.equal(answer.headers["content-type"], "text/csv; charset=utf-8");
    assert.equal(answer.headers["x-guard-export-rows"], "2");
    assert.equal(
      answer.headers["content-disposition"],
      `attachment; filename="guard-consent-evidence-${acme.org.slug}-${start}-${start + 2000}.csv"`,
    );
    assert.equal(
      answer.body,
      HEADER +
        `${formula.consentId},${stored!.principal_id},'@admin,,${noticeId},1,` +
        `"'=HYPERLINK(""http://evil.example"",""a, b"")","'-email;name ""given""",direct,` +
        `${iso(start)},${iso(withdrawnAt)},principal_request,${stored!.audit_hash},1\r\n` +
        `${guest.consentId},,,'+guest-1,${noticeId},1,"Multi\r\nline",email,anonymous,` +
        `${iso(start + 1000)},,,${stored!.guest_hash},1\r\n`,
    );
    assert.deepEqual(parseCsv(answer.body)[2]![6], "Multi\r\nline");

    // [from, to): `from` inclusive, `to` exclusive.
    const first = await exportCsv(acme, start, start + 1000, "admin");
    assert.equal(first.headers["x-guard-export-rows"], "1");
    assert.deepEqual(
      parseCsv(first.body)
        .slice(1)
        .map((r) => r[0]),
      [formula.consentId],
    );
    const second = await exportCsv(acme, start + 1, start + 1001, "dpo");
    assert.deepEqual(
      parseCsv(second.body)
        .slice(1)
        .map((r) => r[0]),
      [guest.consentId],
    );
    const none = await exportCsv(acme, start + 1, start + 1000);
    assert.equal(none.body, HEADER);
    assert.equal(none.headers["x-guard-export-rows"], "0");

    // Another organisation's consents never appear, whatever the range.
    const theirs = await exportCsv(other, 0, Number.MAX_SAFE_INTEGER);
    assert.equal(theirs.body, HEADER);
  });

  test("csvCell guards every formula start and quotes what RFC 4180 needs", () => {
    for (const start of ["=", "+", "-", "@", "\t"]) assert.equal(csvCell(`${start}1`), `'${start}1`);
    assert.equal(csvCell("\r1"), `"'\r1"`);
    assert.equal(csvCell("a,b"), `"a,b"`);
    assert.equal(csvCell('say "hi"'), `"say ""hi"""`);
    assert.equal(csvCell("a\nb"), `"a\nb"`);
    assert.equal(csvCell("a=b"), "a=b");
    assert.equal(csvCell(null), "");
    assert.equal(csvCell(7), "7");
  });

  test("pages keep given order across page boundaries, ties broken by consent id", async () => {
    const seeded = await seedOrganization(t);
    const notice = (await publishTestNotice(t, seeded)).noticeId;
    const org = seeded.org.organizationId;
    await t.db.query(
      `INSERT INTO consents (organization_id, consent_id, anonymous_id, notice_id, notice_version, purpose,
         data_types, source, given_at, audit_hash, audit_key_version)
       SELECT $1, 'cns_' || lpad(i::text, 3, '0'), 'guest-' || i, $2, 1, 'Account', '["email"]'::jsonb,
         'anonymous', 1000 + (i % 4) * 10, 'h' || i, 1
       FROM generate_series(1, 23) AS i`,
      [org, notice],
    );
    let chunks = 0;
    let text = "";
    for await (const chunk of consentEvidenceCsv(t.db, org, { from: 1000, to: 1040 }, { pageRows: 3 })) {
      chunks++;
      text += chunk;
    }
    assert.equal(chunks, 1 + 8, "the header, then one chunk per page of 3");
    const rows = parseCsv(text).slice(1);
    const expected = Array.from({ length: 23 }, (_, k) => k + 1)
      .map((i) => ({ id: `cns_${String(i).padStart(3, "0")}`, at: 1000 + (i % 4) * 10 }))
      .sort((a, b) => a.at - b.at || a.id.localeCompare(b.id));
    assert.deepEqual(
      rows.map((r) => [r[0], r[9]]),
      expected.map((e) => [e.id, iso(e.at)]),
    );
    // The range's bounds apply on every page: given_at 1030 is outside [1000, 1030).
    const bounded = parseCsv(
      await collect(consentEvidenceCsv(t.db, org, { from: 1000, to: 1030 }, { pageRows: 2 })),
    );
    assert.deepEqual(
      bounded.slice(1).map((r) => r[0]),
      expected.filter((e) => e.at < 1030).map((e) => e.id),
    );
  });

  test("5 000 rows over several pages; reads stop while the reader does not pull", async () => {
    await seedConsents(bulk, 5000);
    const answer = await exportCsv(bulk, 0, 1_000_000);
    assert.equal(answer.statusCode, 200);
    assert.equal(answer.headers["x-guard-export-rows"], "5000");
    const rows = parseCsv(answer.body);
    assert.deepEqual(rows[0], [...EVIDENCE_COLUMNS]);
    assert.equal(rows.length, 5001);
    rows.slice(1).forEach((r, k) => {
      assert.equal(r[0], `cns_${String(k + 1).padStart(6, "0")}`);
      assert.equal(r[2], `ext-${k + 1}`);
    });

    // Memory does not grow with the row count: the stream reads a page only when its reader has
    // taken the previous one, so an idle reader holds one page however many rows there are.
    let pages = 0;
    const counting: Queryable = {
      query: (sql, params, options) => {
        if (/from "consents"/i.test(sql) && /order by/i.test(sql)) pages++;
        return t.db.query(sql, params, options);
      },
    };
    const stream = evidenceReadable(
      consentEvidenceCsv(counting, bulk.org.organizationId, { from: 0, to: 1_000_000 }, { pageRows: 100 }),
    );
    stream.pause();
    stream.once("readable", () => undefined);
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.ok(pages <= 2, `an idle reader let ${pages} pages be read`);
    stream.destroy();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const afterDestroy = pages;
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(pages, afterDestroy, "a destroyed stream reads no more pages");
  });

  test("a failure after the header was sent truncates the download and is logged", async () => {
    await t.app.listen({ port: 0, host: "127.0.0.1" });
    const port = (t.app.server.address() as AddressInfo).port;
    const { headers } = await signIn(t, bulk, "viewer");
    const query = t.db.query.bind(t.db);
    let pages = 0;
    t.db.query = ((sql: string, params?: readonly unknown[], options?: never) => {
      if (/from "consents"/i.test(sql) && /order by/i.test(sql) && ++pages === 2)
        return Promise.reject(new Error("connection lost (test)"));
      return query(sql, params, options);
    }) as typeof t.db.query;
    try {
      const answer = await download(port, `${EXPORT}?from=0&to=1000000`, headers);
      assert.equal(answer.status, 200);
      assert.equal(answer.complete, false, "the client sees the download cut short");
      assert.ok(answer.body.startsWith(HEADER));
      assert.equal(parseCsv(answer.body.slice(0, answer.body.lastIndexOf("\r\n") + 2)).length, 2001);
    } finally {
      t.db.query = query;
    }
    assert.ok(
      t.logs.some((line) => line.includes("consent evidence export failed mid-stream")),
      "the failure is logged",
    );
  });

  test("a client that disconnects mid-export leaves the server serving", async () => {
    const port = (t.app.server.address() as AddressInfo).port;
    const { headers } = await signIn(t, bulk, "viewer");
    const received = await new Promise<number>((resolve, reject) => {
      const req = http.get(
        { host: "127.0.0.1", port, path: `${EXPORT}?from=0&to=1000000`, headers },
        (res) => {
          assert.equal(res.statusCode, 200);
          res.once("data", (chunk: Buffer) => {
            req.destroy();
            resolve(chunk.length);
          });
        },
      );
      req.on("error", (error) =>
        (error as NodeJS.ErrnoException).code === "ECONNRESET" ? undefined : reject(error),
      );
    });
    assert.ok(received > 0);
    // The instance answers other requests at once (no transaction or statement held by the export).
    const session = await t.request({ method: "GET", url: "/api/v1/staff/session", headers });
    assert.equal(session.statusCode, 200, session.body);
  });

  test("from and to: missing, malformed or out of order is 400 naming the field", async () => {
    const bad = (query: string) => staff(acme, "viewer", "GET", `${EXPORT}${query}`);
    assertApiError(await bad("?to=10"), 400, "VALIDATION_ERROR", { field: "from" });
    assertApiError(await bad("?from=10"), 400, "VALIDATION_ERROR", { field: "to" });
    assertApiError(await bad("?from=abc&to=10"), 400, "VALIDATION_ERROR", { field: "from" });
    assertApiError(await bad("?from=-1&to=10"), 400, "VALIDATION_ERROR", { field: "from" });
    assertApiError(await bad("?from=10&to=10"), 400, "VALIDATION_ERROR", { field: "to" });
    assertApiError(await bad("?from=10&to=9"), 400, "VALIDATION_ERROR", { field: "to" });
  });

  test("needs a staff session", async () => {
    assertApiError(await t.request({ method: "GET", url: `${EXPORT}?from=0&to=10` }), 401, "UNAUTHORIZED");
  });
});
