// GET /api/v1/staff/offline/ivr: staff read the IVR artefacts partners reported, as stored, newest
// receipt first, filtered by outcome or call id, a page at a time, each with whether its consent was
// withdrawn since; never the withdrawal token read out to the caller; never another organisation's;
// behind offline_async_consent like the partner's route.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { LightMyRequestResponse } from "fastify";
import { setCapabilities } from "../../../src/capabilities/capabilities.js";
import type { IvrAnswer } from "../../../src/offline/ivr/artifacts.js";
import { assertApiError } from "../../support/api-error.js";
import { publishTestNotice } from "../../support/consent-fixtures.js";
import {
  bearer,
  seedOrganization,
  signIn,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../../support/harness.js";

interface ListedArtifact {
  artifactId: string;
  partnerCallId: string;
  accepted: boolean;
  consentId: string | null;
  receivedAt: number;
  [field: string]: unknown;
}

interface ArtifactPage {
  artifacts: ListedArtifact[];
  nextCursor: string | null;
}

describe("the staff list of IVR artefacts", () => {
  let t: TestApp;
  let acme: SeededOrg;
  let other: SeededOrg;
  /** What acme's partner submitted and was answered, in order of receipt. */
  const submitted: { body: Record<string, unknown>; answer: IvrAnswer; receivedAt: number }[] = [];
  let otherAnswer: IvrAnswer;

  const artefact = (noticeId: string, partnerCallId: string, dtmfSequence: string) => ({
    noticeId,
    partnerCallId,
    audioRecordingUri: `https://recordings.partner.example/${partnerCallId}.wav`,
    transcript: `Press 1 to agree. [${dtmfSequence}]`,
    locale: "en-IN",
    dtmfSequence,
    callerNumberHash: `sha256:${partnerCallId}`,
    capturedAt: t.clock.now() - 60_000,
    partnerSignature: `partner-sig-v1:${partnerCallId}`,
    purpose: "Marketing",
    dataTypes: ["phone", "call_recording"],
  });
  const submit = async (seeded: SeededOrg, body: Record<string, unknown>): Promise<IvrAnswer> => {
    const res = await t.request({
      method: "POST",
      url: "/api/v1/offline/ivr",
      headers: bearer(seeded.apiKey),
      payload: body,
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as IvrAnswer;
  };
  const sessions = new Map<string, Record<string, string>>();
  const list = async (
    query = "",
    seeded = acme,
    role: "viewer" | "dpo" | "admin" = "viewer",
  ): Promise<LightMyRequestResponse> => {
    const key = `${seeded.org.slug}:${role}`;
    if (!sessions.has(key)) sessions.set(key, (await signIn(t, seeded, role)).headers);
    return t.request({
      method: "GET",
      url: `/api/v1/staff/offline/ivr${query}`,
      headers: sessions.get(key)!,
    });
  };
  const page = async (query = "", seeded = acme): Promise<ArtifactPage> => {
    const res = await list(query, seeded);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as ArtifactPage;
  };
  const ids = (found: ArtifactPage) => found.artifacts.map((a) => a.artifactId);
  /** acme's artefact ids, newest receipt first, of the submissions `keep` selects. */
  const newestFirst = (keep: (answer: IvrAnswer) => boolean = () => true) =>
    submitted
      .filter((s) => keep(s.answer))
      .map((s) => s.answer.artifactId)
      .reverse();

  before(async () => {
    t = await startTestApp();
    acme = await seedOrganization(t);
    other = await seedOrganization(t);
    const acmeNotice = (await publishTestNotice(t, acme)).noticeId;
    // Accepted, refused, accepted, refused: each received a second after the one before.
    for (const [i, dtmf] of ["1", "2", "1#", "9"].entries()) {
      t.clock.advance(1_000);
      const body = artefact(acmeNotice, `acme-call-${i}`, dtmf);
      submitted.push({ body, answer: await submit(acme, body), receivedAt: t.clock.now() });
    }
    t.clock.advance(1_000);
    otherAnswer = await submit(
      other,
      artefact((await publishTestNotice(t, other)).noticeId, "acme-call-0", "1"),
    );
  });
  after(() => t.close());

  test("every artefact as stored, newest receipt first, never the withdrawal token", async () => {
    const found = await page();
    assert.deepEqual(ids(found), newestFirst());
    assert.equal(found.nextCursor, null);
    for (const { body, answer, receivedAt } of submitted) {
      const listed = found.artifacts.find((a) => a.artifactId === answer.artifactId)!;
      assert.deepEqual(listed, {
        ...body,
        artifactId: answer.artifactId,
        noticeVersion: 1,
        accepted: answer.accepted,
        consentId: answer.consentId,
        consentWithdrawnAt: null,
        receivedAt,
        receivedBy: acme.apiKeyId,
        submissionHash: listed.submissionHash,
      });
      assert.match(String(listed.submissionHash), /^[0-9a-f]{64}$/);
      if (answer.withdrawalToken) assert.ok(!JSON.stringify(found).includes(answer.withdrawalToken));
    }
    assert.equal(submitted.filter((s) => s.answer.withdrawalToken).length, 2);
    // What the chain committed to is the hash the list shows.
    const [entry] = await t.db.query<{ payload: string | Record<string, unknown> }>(
      `SELECT payload FROM audit_queue WHERE subject_id = $1
       UNION ALL SELECT payload FROM audit_entries WHERE subject_id = $1`,
      [submitted[0]!.answer.artifactId],
    );
    const payload = typeof entry!.payload === "string" ? JSON.parse(entry!.payload) : entry!.payload;
    assert.equal(payload.submissionHash, found.artifacts.at(-1)!.submissionHash);
  });

  test("a consent withdrawn with the caller's token shows when; the artefact is otherwise unchanged", async () => {
    const before = await page();
    const accepted = submitted.find((s) => s.answer.withdrawalToken)!.answer;
    t.clock.advance(5_000);
    const res = await t.request({
      method: "POST",
      url: "/api/v1/offline/withdrawals",
      payload: { withdrawalToken: accepted.withdrawalToken },
    });
    assert.equal(res.statusCode, 200, res.body);
    const after = await page();
    assert.deepEqual(
      after.artifacts.map((a) => a.consentWithdrawnAt),
      before.artifacts.map((a) => (a.artifactId === accepted.artifactId ? t.clock.now() : null)),
    );
    const strip = (found: ArtifactPage) => found.artifacts.map(({ consentWithdrawnAt: _, ...rest }) => rest);
    assert.deepEqual(strip(after), strip(before), "nothing else of an artefact changes");
  });

  test("any staff role may list", async () => {
    for (const role of ["viewer", "dpo", "admin"] as const) {
      const res = await list("", acme, role);
      assert.equal(res.statusCode, 200, `${role}: ${res.body}`);
    }
  });

  test("outcome and partnerCallId filter; an unknown call id is an empty list", async () => {
    assert.deepEqual(
      ids(await page("?outcome=accepted")),
      newestFirst((a) => a.accepted),
    );
    assert.deepEqual(
      ids(await page("?outcome=refused")),
      newestFirst((a) => !a.accepted),
    );
    assert.deepEqual(ids(await page("?partnerCallId=acme-call-1")), [submitted[1]!.answer.artifactId]);
    assert.deepEqual(ids(await page("?partnerCallId=acme-call-1&outcome=accepted")), []);
    assert.deepEqual(ids(await page("?partnerCallId=no-such-call")), []);
  });

  test("pages follow one another to the end; a cursor is refused by another filter's list", async () => {
    const walked: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const found: ArtifactPage = await page(
        `?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      walked.push(...ids(found));
      cursor = found.nextCursor;
      pages++;
    } while (cursor !== null && pages < 10);
    assert.deepEqual(walked, newestFirst());

    const accepted = await page("?outcome=accepted&limit=1");
    assert.ok(accepted.nextCursor);
    assertApiError(
      await list(`?outcome=refused&cursor=${encodeURIComponent(accepted.nextCursor)}`),
      400,
      "VALIDATION_ERROR",
      { field: "cursor" },
    );
  });

  test("bad filters are 400 naming the field", async () => {
    assertApiError(await list("?outcome=maybe"), 400, "VALIDATION_ERROR", { field: "outcome" });
    assertApiError(await list(`?partnerCallId=${"x".repeat(201)}`), 400, "VALIDATION_ERROR", {
      field: "partnerCallId",
    });
    assertApiError(await list("?limit=0"), 400, "VALIDATION_ERROR", { field: "limit" });
  });

  test("another organisation's artefacts are never listed, even under the same call id", async () => {
    assert.ok(!ids(await page()).includes(otherAnswer.artifactId));
    assert.deepEqual(ids(await page("?partnerCallId=acme-call-0", other)), [otherAnswer.artifactId]);
    assert.deepEqual(ids(await page("", other)), [otherAnswer.artifactId]);
  });

  test("needs a staff session: no credential or a service key is 401", async () => {
    assertApiError(await t.request({ method: "GET", url: "/api/v1/staff/offline/ivr" }), 401, "UNAUTHORIZED");
    assertApiError(
      await t.request({ method: "GET", url: "/api/v1/staff/offline/ivr", headers: bearer(acme.apiKey) }),
      401,
      "UNAUTHORIZED",
    );
  });

  test("404 while offline_async_consent is switched off", async () => {
    await t.db.transaction((tx) =>
      setCapabilities(tx, acme.org.organizationId, { offline_async_consent: false }),
    );
    try {
      assertApiError(await list(), 404, "NOT_FOUND");
    } finally {
      await t.db.transaction((tx) =>
        setCapabilities(tx, acme.org.organizationId, { offline_async_consent: true }),
      );
    }
    assert.deepEqual(ids(await page()), newestFirst());
  });
});
