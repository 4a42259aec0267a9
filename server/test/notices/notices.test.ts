// Notices as versioned, immutable evidence, driven through the staff routes: drafts (incomplete
// allowed), preview, publication (Rule 3 completeness, versioning, superseding), archiving, and
// the notice-language list.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { loadOpenApiDocument } from "@guard/contract";
import { NOTICE_LANGUAGE_CODES, NOTICE_LANGUAGE_LIST } from "../../src/notices/languages.js";
import { assertApiError } from "../support/api-error.js";
import {
  bearer,
  seedOrganization,
  signIn,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../support/harness.js";
import { ok as okBody, staffClient } from "../support/staff-client.js";

const COMPLETE_EN = {
  title: "How Acme uses your data",
  body: "We use the data listed against each purpose only for that purpose.",
  withdrawal: "Withdraw any time from Settings > Privacy, as easily as you consented.",
  rights: "Ask us for a summary, correction or erasure of your data, or nominate someone.",
  complaint: "You may complain to the Data Protection Board of India.",
};
const COMPLETE_HI = {
  title: "एक्मे आपके डेटा का उपयोग कैसे करता है",
  body: "हम प्रत्येक उद्देश्य के सामने सूचीबद्ध डेटा का उपयोग केवल उसी उद्देश्य के लिए करते हैं।",
  withdrawal: "सेटिंग्स > गोपनीयता से कभी भी सहमति वापस लें।",
  rights: "अपने डेटा का सारांश, सुधार या मिटाना माँगें।",
  complaint: "आप भारतीय डेटा संरक्षण बोर्ड से शिकायत कर सकते हैं।",
};
const ITEMIZED = [
  { purpose: "Account", personalDataDescription: "Name and email address" },
  { purpose: "Marketing", personalDataDescription: "Email address", tracking: true },
];

type Draft = {
  noticeId: string;
  key: string;
  content: Record<string, Record<string, string>>;
  languages: string[];
  publishable: boolean;
  problems: { field: string; message: string }[];
  updatedBy: string | null;
};
type Notice = { noticeId: string; version: number; status: string; content: Record<string, unknown> };

describe("notices (staff lifecycle)", () => {
  let t: TestApp;
  let staffRequest: ReturnType<typeof staffClient>;
  before(async () => {
    t = await startTestApp();
    staffRequest = staffClient(t);
  });
  after(() => t.close());

  const ok = async <T>(res: Awaited<ReturnType<TestApp["request"]>>, status = 200): Promise<T> =>
    okBody<T>(res, status);
  const create = async (seeded: SeededOrg, body: Record<string, unknown>) =>
    ok<Draft>(await staffRequest(seeded, "dpo", "POST", "/api/v1/staff/notices", body), 201);
  const saveDraft = (seeded: SeededOrg, noticeId: string, body: Record<string, unknown>) =>
    staffRequest(seeded, "dpo", "PUT", `/api/v1/staff/notices/${noticeId}/draft`, body);
  const publish = (seeded: SeededOrg, noticeId: string, role: "admin" | "dpo" | "viewer" = "dpo") =>
    staffRequest(seeded, role, "POST", `/api/v1/staff/notices/${noticeId}/publish`);
  const archive = (seeded: SeededOrg, noticeId: string) =>
    staffRequest(seeded, "admin", "POST", `/api/v1/staff/notices/${noticeId}/archive`);
  const publicNotice = (noticeId: string) => t.request({ method: "GET", url: `/api/v1/notices/${noticeId}` });

  test("the language list is English plus the 22 Eighth Schedule languages, the same as the contract enum", async () => {
    const res = await t.request({ method: "GET", url: "/api/v1/notice-languages" });
    const { languages } = await ok<{ languages: typeof NOTICE_LANGUAGE_LIST }>(res);
    assert.equal(languages.length, 23);
    assert.deepEqual(languages[0], {
      code: "en",
      name: "English",
      nativeName: "English",
      direction: "ltr",
      eighthSchedule: false,
    });
    const schedule = languages.filter((l) => l.eighthSchedule).map((l) => l.name);
    assert.deepEqual(schedule, [
      "Assamese",
      "Bengali",
      "Bodo",
      "Dogri",
      "Gujarati",
      "Hindi",
      "Kannada",
      "Kashmiri",
      "Konkani",
      "Maithili",
      "Malayalam",
      "Manipuri",
      "Marathi",
      "Nepali",
      "Odia",
      "Punjabi",
      "Sanskrit",
      "Santali",
      "Sindhi",
      "Tamil",
      "Telugu",
      "Urdu",
    ]);
    assert.deepEqual(
      languages.filter((l) => l.direction === "rtl").map((l) => l.code),
      ["ks", "sd", "ur"],
    );
    const schemas = (loadOpenApiDocument().components as { schemas: Record<string, { enum?: string[] }> })
      .schemas;
    assert.deepEqual(schemas.NoticeLanguageCode!.enum, NOTICE_LANGUAGE_CODES);
    assert.deepEqual(
      languages.map((l) => l.code),
      NOTICE_LANGUAGE_CODES,
    );
  });

  test("a draft may be incomplete; preview names what is missing; publishing it is refused naming the field", async () => {
    const seeded = await seedOrganization(t);
    const draft = await create(seeded, { key: "website", content: { hi: { title: "शीर्षक" } } });
    assert.match(draft.noticeId, /^ntc_/);
    assert.equal(draft.publishable, false);
    assert.deepEqual(
      draft.problems.map((p) => p.field),
      ["itemized", "content.hi.body", "content.hi.withdrawal", "content.hi.rights", "content.hi.complaint"],
    );
    // A draft is not public.
    assertApiError(await publicNotice(draft.noticeId), 404, "NOT_FOUND");

    const preview = await ok<{
      nextVersion: number;
      publishable: boolean;
      renderings: { language: string; nativeName: string; title?: string; missing: string[] }[];
      notice?: unknown;
    }>(await staffRequest(seeded, "viewer", "GET", `/api/v1/staff/notices/${draft.noticeId}/draft/preview`));
    assert.equal(preview.nextVersion, 1);
    assert.equal(preview.publishable, false);
    assert.equal(preview.notice, undefined, "no Notice shape until it is complete");
    assert.deepEqual(preview.renderings, [
      {
        language: "hi",
        name: "Hindi",
        nativeName: "हिन्दी",
        direction: "ltr",
        title: "शीर्षक",
        itemized: [],
        missing: ["body", "withdrawal", "rights", "complaint"],
      },
    ]);

    assertApiError(await publish(seeded, draft.noticeId), 400, "VALIDATION_ERROR", { field: "itemized" });
    await ok(await saveDraft(seeded, draft.noticeId, { itemized: ITEMIZED, content: { en: COMPLETE_EN } }));
    // Each Rule 3 text is required in every language: the English one is complete, Hindi lacks withdrawal.
    const { withdrawal: _, ...hiWithoutWithdrawal } = COMPLETE_HI;
    await ok(
      await saveDraft(seeded, draft.noticeId, {
        itemized: ITEMIZED,
        content: { en: COMPLETE_EN, hi: hiWithoutWithdrawal },
      }),
    );
    assertApiError(await publish(seeded, draft.noticeId), 400, "VALIDATION_ERROR", {
      field: "content.hi.withdrawal",
      message: /withdraw/,
    });
    for (const field of ["rights", "complaint"] as const) {
      const { [field]: _omitted, ...partial } = COMPLETE_HI;
      await ok(
        await saveDraft(seeded, draft.noticeId, {
          itemized: ITEMIZED,
          content: { en: COMPLETE_EN, hi: partial },
        }),
      );
      assertApiError(await publish(seeded, draft.noticeId), 400, "VALIDATION_ERROR", {
        field: `content.hi.${field}`,
      });
    }
    assertApiError(await publicNotice(draft.noticeId), 404, "NOT_FOUND");
  });

  test("publishing a complete draft makes version 1 public; a repeated publish changes nothing", async () => {
    const seeded = await seedOrganization(t);
    const draft = await create(seeded, {
      key: "default",
      itemized: ITEMIZED,
      content: { hi: COMPLETE_HI, en: COMPLETE_EN },
    });
    assert.deepEqual(draft.languages, ["hi", "en"]);
    assert.equal(draft.publishable, true);
    const viewer = await publish(seeded, draft.noticeId, "viewer");
    assertApiError(viewer, 403, "FORBIDDEN");

    const preview = await ok<{
      nextVersion: number;
      unchanged: boolean;
      notice: Notice & { status: string };
    }>(await staffRequest(seeded, "dpo", "GET", `/api/v1/staff/notices/${draft.noticeId}/draft/preview`));
    assert.deepEqual([preview.nextVersion, preview.unchanged, preview.notice.status], [1, false, "draft"]);

    t.clock.advance(1000);
    const published = await ok<{ noticeId: string; version: number; created: boolean; notice: Notice }>(
      await publish(seeded, draft.noticeId),
    );
    assert.deepEqual([published.version, published.created, published.notice.status], [1, true, "published"]);
    const pub = await ok<Notice & { languages: string[]; itemized: unknown }>(
      await publicNotice(draft.noticeId),
    );
    assert.deepEqual(pub.content, { hi: COMPLETE_HI, en: COMPLETE_EN });
    assert.deepEqual(pub.languages, ["hi", "en"], "the organisation's language order is kept");
    assert.deepEqual(pub.itemized, ITEMIZED, "the tracking declaration is kept");
    assert.deepEqual(Object.keys(pub.content), ["hi", "en"]);

    // The draft is consumed; publishing again (a retry) answers the published version.
    const again = await ok<{ version: number; created: boolean }>(await publish(seeded, draft.noticeId));
    assert.deepEqual([again.version, again.created], [1, false]);
    assertApiError(
      await staffRequest(seeded, "dpo", "GET", `/api/v1/staff/notices/${draft.noticeId}/draft/preview`),
      404,
      "NOT_FOUND",
    );
    const [row] = await t.db.query<{ published_by: string }>(
      "SELECT published_by FROM notice_versions WHERE organization_id = $1 AND notice_id = $2",
      [seeded.org.organizationId, draft.noticeId],
    );
    assert.match(row!.published_by, /^stf_/);
  });

  test("a changed draft publishes as version 2 and supersedes version 1, which stays as it was", async () => {
    const seeded = await seedOrganization(t);
    const { noticeId } = await create(seeded, {
      key: "app",
      itemized: ITEMIZED,
      content: { en: COMPLETE_EN },
    });
    await ok(await publish(seeded, noticeId));
    t.clock.advance(60_000);

    // A draft identical to the published version would change nothing.
    await ok(await saveDraft(seeded, noticeId, { itemized: ITEMIZED, content: { en: COMPLETE_EN } }));
    const same = await ok<{ unchanged: boolean; nextVersion: number }>(
      await staffRequest(seeded, "dpo", "GET", `/api/v1/staff/notices/${noticeId}/draft/preview`),
    );
    assert.deepEqual([same.unchanged, same.nextVersion], [true, 1]);

    const changed = { ...COMPLETE_EN, body: "We now also use your data to improve the service." };
    const saved = await ok<Draft>(
      await saveDraft(seeded, noticeId, { itemized: ITEMIZED, content: { en: changed } }),
    );
    assert.equal(saved.updatedBy !== null, true);
    // The published version is untouched while a draft is pending.
    assert.deepEqual((await ok<Notice>(await publicNotice(noticeId))).content, { en: COMPLETE_EN });

    const v2 = await ok<{ version: number; created: boolean }>(await publish(seeded, noticeId));
    assert.deepEqual([v2.version, v2.created], [2, true]);
    const pub = await ok<Notice>(await publicNotice(noticeId));
    assert.deepEqual([pub.version, pub.content], [2, { en: changed }]);

    const detail = await ok<{
      status: string;
      publishedVersion: number;
      latestVersion: number;
      draft: unknown;
      versions: (Notice & { supersededAt: number | null; publishedAt: number })[];
    }>(await staffRequest(seeded, "viewer", "GET", `/api/v1/staff/notices/${noticeId}`));
    assert.deepEqual(
      [detail.status, detail.publishedVersion, detail.latestVersion, detail.draft],
      ["published", 2, 2, null],
    );
    assert.deepEqual(
      detail.versions.map((v) => [v.version, v.status, v.supersededAt]),
      [
        [1, "superseded", t.clock.now()],
        [2, "published", null],
      ],
    );
    assert.deepEqual(
      detail.versions[0]!.content,
      { en: COMPLETE_EN },
      "version 1 is kept unchanged as evidence",
    );

    const listed = await ok<{
      notices: { noticeId: string; versions: { version: number; status: string }[] }[];
    }>(await staffRequest(seeded, "viewer", "GET", "/api/v1/staff/notices"));
    assert.deepEqual(
      listed.notices.map((n) => [n.noticeId, n.versions.map((v) => v.status)]),
      [[noticeId, ["superseded", "published"]]],
    );
  });

  test("archiving hides the notice from public reads and new consents; consents already given are unaffected", async () => {
    const seeded = await seedOrganization(t);
    const orgId = seeded.org.organizationId;
    const { noticeId } = await create(seeded, {
      key: "default",
      itemized: ITEMIZED,
      content: { en: COMPLETE_EN },
    });
    await ok(await publish(seeded, noticeId));
    const consentBody = {
      organizationId: orgId,
      noticeId,
      purpose: "Account",
      dataTypes: ["email"],
      anonymousId: "guest-1",
    };
    const given = await ok<{ consentId: string }>(
      await t.request({ method: "POST", url: "/api/v1/consents/anonymous", payload: consentBody }),
      201,
    );

    t.clock.advance(5000);
    const archived = await ok<{ version: number; status: string; archivedAt: number; archivedBy: string }>(
      await archive(seeded, noticeId),
    );
    assert.deepEqual(
      [archived.version, archived.status, archived.archivedAt],
      [1, "archived", t.clock.now()],
    );
    assert.match(archived.archivedBy, /^stf_/);
    assertApiError(await publicNotice(noticeId), 404, "NOT_FOUND");
    const list = await ok<{ notices: unknown[] }>(
      await t.request({ method: "GET", url: `/api/v1/org/${orgId}/notices` }),
    );
    assert.deepEqual(list.notices, []);
    // Archiving again is a repeat, not an error.
    assert.equal((await ok<{ status: string }>(await archive(seeded, noticeId))).status, "archived");

    assertApiError(
      await t.request({
        method: "POST",
        url: "/api/v1/consents/anonymous",
        payload: { ...consentBody, anonymousId: "guest-2" },
      }),
      400,
      "NOTICE_NOT_PUBLISHED",
    );
    const consent = await ok<{ consentId: string; status: string }>(
      await t.request({
        method: "GET",
        url: `/cm/v1/consent/${given.consentId}`,
        headers: bearer(seeded.apiKey),
      }),
    );
    assert.deepEqual([consent.consentId, consent.status], [given.consentId, "active"]);
    const [row] = await t.db.query<{ notice_version: number }>(
      "SELECT notice_version FROM consents WHERE organization_id = $1 AND consent_id = $2",
      [orgId, given.consentId],
    );
    assert.equal(row!.notice_version, 1, "the consent still points at the version it was given against");

    // Publishing a new draft brings the notice back as a new version.
    await ok(await saveDraft(seeded, noticeId, { itemized: ITEMIZED, content: { en: COMPLETE_EN } }));
    const back = await ok<{ version: number; created: boolean }>(await publish(seeded, noticeId));
    assert.deepEqual([back.version, back.created], [2, true]);
    assert.equal((await ok<Notice>(await publicNotice(noticeId))).version, 2);
  });

  test("lifecycle moves the state does not allow are INVALID_STATUS_TRANSITION", async () => {
    const seeded = await seedOrganization(t);
    const { noticeId } = await create(seeded, { key: "never-published" });
    assertApiError(await archive(seeded, noticeId), 400, "INVALID_STATUS_TRANSITION");
    const discarded = await ok<{ discarded: boolean }>(
      await staffRequest(seeded, "dpo", "DELETE", `/api/v1/staff/notices/${noticeId}/draft`),
    );
    assert.equal(discarded.discarded, true);
    assert.equal(
      (
        await ok<{ discarded: boolean }>(
          await staffRequest(seeded, "dpo", "DELETE", `/api/v1/staff/notices/${noticeId}/draft`),
        )
      ).discarded,
      false,
    );
    assertApiError(await publish(seeded, noticeId), 400, "INVALID_STATUS_TRANSITION");
    const listed = await ok<{ notices: { status: string; draft: unknown; latestVersion: unknown }[] }>(
      await staffRequest(seeded, "viewer", "GET", "/api/v1/staff/notices"),
    );
    assert.deepEqual(listed.notices, [
      {
        noticeId,
        key: "never-published",
        createdAt: t.clock.now(),
        status: "draft",
        publishedVersion: null,
        latestVersion: null,
        draft: null,
        versions: [],
      },
    ]);
  });

  test("creating a notice is idempotent on its key and content; another content under the key is CONFLICT", async () => {
    const seeded = await seedOrganization(t);
    const body = { key: "checkout", itemized: ITEMIZED, content: { en: COMPLETE_EN } };
    const first = await create(seeded, body);
    const again = await create(seeded, body);
    assert.equal(again.noticeId, first.noticeId);
    assertApiError(
      await staffRequest(seeded, "dpo", "POST", "/api/v1/staff/notices", {
        ...body,
        itemized: [ITEMIZED[0]],
      }),
      409,
      "CONFLICT",
    );
    // An Idempotency-Key replays the first answer; reused with another body it is CONFLICT.
    const keyed = { key: "keyed", content: { en: { title: "Keyed" } } };
    const { headers } = await signIn(t, seeded, "admin");
    const withKey = (payload: Record<string, unknown>) =>
      t.request({
        method: "POST",
        url: "/api/v1/staff/notices",
        headers: { ...headers, "idempotency-key": "create-keyed-1" },
        payload,
      });
    const original = await withKey(keyed);
    assert.equal(original.statusCode, 201, original.body);
    const replay = await withKey(keyed);
    assert.equal(replay.headers["idempotent-replayed"], "true");
    assert.deepEqual(replay.json(), original.json());
    assertApiError(await withKey({ ...keyed, key: "keyed-other" }), 409, "CONFLICT");

    // A repeated save of the same draft keeps its edit time.
    t.clock.advance(1000);
    const resaved = await ok<Draft & { updatedAt: number }>(await saveDraft(seeded, first.noticeId, body));
    assert.equal(resaved.updatedAt, t.clock.now() - 1000);
  });

  test("bad drafts are VALIDATION_ERROR naming the field", async () => {
    const seeded = await seedOrganization(t);
    const { noticeId } = await create(seeded, { key: "bad-input" });
    const cases: [Record<string, unknown>, string][] = [
      [{ content: { fr: { title: "Avis" } } }, "content.fr"],
      [{ content: { EN: { title: "Notice" } } }, "content.EN"],
      [{ content: { en: { title: "   " } } }, "content.en.title"],
      [{ content: { en: { title: "" } } }, "content.en.title"],
      [{ content: { en: { body: "x".repeat(100_001) } } }, "content.en.body"],
      [{ itemized: [] }, "itemized"],
      [{ itemized: [{ purpose: "Ads|Analytics", personalDataDescription: "x" }] }, "itemized[0].purpose"],
      [{ itemized: [{ purpose: "Ads" }] }, "itemized[0].personalDataDescription"],
      [
        {
          itemized: [
            { purpose: "Ads", personalDataDescription: "x" },
            { purpose: "Ads", personalDataDescription: "y" },
          ],
        },
        "itemized[1].purpose",
      ],
      [
        { itemized: [{ purpose: "Ads", personalDataDescription: "x", tracking: "yes" }] },
        "itemized[0].tracking",
      ],
    ];
    for (const [body, field] of cases) {
      assertApiError(await saveDraft(seeded, noticeId, body), 400, "VALIDATION_ERROR", { field });
    }
    assertApiError(
      await staffRequest(seeded, "dpo", "POST", "/api/v1/staff/notices", { key: "Not A Key" }),
      400,
      "VALIDATION_ERROR",
      { field: "key" },
    );
    assertApiError(
      await staffRequest(seeded, "dpo", "POST", "/api/v1/staff/notices", { content: {} }),
      400,
      "VALIDATION_ERROR",
      { field: "key" },
    );
    assertApiError(await saveDraft(seeded, "ntc-malformed", {}), 400, "VALIDATION_ERROR", {
      field: "noticeId",
    });
  });

  test("viewers read but cannot write; another organisation's notice is 404 on every route", async () => {
    const a = await seedOrganization(t);
    const b = await seedOrganization(t);
    const { noticeId } = await create(a, {
      key: "default",
      itemized: ITEMIZED,
      content: { en: COMPLETE_EN },
    });
    assertApiError(
      await staffRequest(a, "viewer", "POST", "/api/v1/staff/notices", { key: "x" }),
      403,
      "FORBIDDEN",
    );
    assertApiError(
      await staffRequest(a, "viewer", "PUT", `/api/v1/staff/notices/${noticeId}/draft`, {}),
      403,
      "FORBIDDEN",
    );
    assertApiError(
      await staffRequest(a, "viewer", "POST", `/api/v1/staff/notices/${noticeId}/archive`),
      403,
      "FORBIDDEN",
    );
    for (const [method, url, payload] of [
      ["GET", `/api/v1/staff/notices/${noticeId}`, undefined],
      ["PUT", `/api/v1/staff/notices/${noticeId}/draft`, {}],
      ["DELETE", `/api/v1/staff/notices/${noticeId}/draft`, undefined],
      ["GET", `/api/v1/staff/notices/${noticeId}/draft/preview`, undefined],
      ["POST", `/api/v1/staff/notices/${noticeId}/publish`, undefined],
      ["POST", `/api/v1/staff/notices/${noticeId}/archive`, undefined],
    ] as const) {
      assertApiError(await staffRequest(b, "admin", method, url, payload), 404, "NOT_FOUND");
    }
    const listedB = await ok<{ notices: unknown[] }>(
      await staffRequest(b, "admin", "GET", "/api/v1/staff/notices"),
    );
    assert.deepEqual(listedB.notices, []);
    // B's failed attempts left A's draft alone.
    const detail = await ok<{ draft: Draft }>(
      await staffRequest(a, "viewer", "GET", `/api/v1/staff/notices/${noticeId}`),
    );
    assert.deepEqual(detail.draft.content, { en: COMPLETE_EN });
    assertApiError(await t.request({ method: "GET", url: "/api/v1/staff/notices" }), 401, "UNAUTHORIZED");
  });

  test("itemised purposes may name their data types; the public notice carries them and its key", async () => {
    const seeded = await seedOrganization(t);
    const itemized = [
      { purpose: "Account", personalDataDescription: "Name and email address", dataTypes: ["name", "email"] },
      {
        purpose: "Analytics",
        personalDataDescription: "Pages visited",
        tracking: true,
        dataTypes: ["page-views"],
      },
      { purpose: "Marketing", personalDataDescription: "Email address" },
    ];
    const draft = await create(seeded, { key: "web", itemized, content: { en: COMPLETE_EN } });
    assert.equal((await publish(seeded, draft.noticeId)).statusCode, 200);
    const notice = await ok<{ key: string; itemized: unknown[] }>(await publicNotice(draft.noticeId));
    assert.equal(notice.key, "web");
    assert.deepEqual(notice.itemized, itemized);
    const listed = await ok<{ notices: { key: string }[] }>(
      await t.request({ method: "GET", url: `/api/v1/org/${seeded.org.organizationId}/notices` }),
    );
    assert.deepEqual(
      listed.notices.map((n) => n.key),
      ["web"],
    );

    for (const [dataTypes, field] of [
      [[], "itemized[0].dataTypes"],
      [["email", "email"], "itemized[0].dataTypes[1]"],
      [["a,b"], "itemized[0].dataTypes[0]"],
      [["a|b"], "itemized[0].dataTypes[0]"],
      ["email", "itemized[0].dataTypes"],
    ] as const) {
      const res = await saveDraft(seeded, draft.noticeId, {
        itemized: [{ purpose: "Account", personalDataDescription: "Name", dataTypes }],
        content: { en: COMPLETE_EN },
      });
      assertApiError(res, 400, "VALIDATION_ERROR");
      assert.match(
        String(res.json().field),
        new RegExp(field.replace(/[[\]|.]/g, "\\$&")),
        JSON.stringify(dataTypes),
      );
    }
  });
});
