// The Offline capture page (issue 26) in a real Chromium against a real Guard. Seeded through the
// API with the organisation's service key: a device enrolled with a P-256 key made here, a batch of
// sessions it signed that Guard quarantines (two with the device clock 30 days off, one signed by
// another key), a QR consent link, point-of-sale requests, two of them left unanswered past
// 72 hours (the expiry sweep run once), and two IVR calls (one accepted, one refused). A dpo
// releases one capture (consents exist afterwards) and rejects another, disables the link, closes
// an expired request and reads the IVR calls; a viewer gets no write control; with the
// capabilities off every section says which one.
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { expireDuePosRequests } from "../../../server/src/offline/pos/requests.js";
import { publishTestNotice } from "../../../server/test/support/consent-fixtures.js";
import { bearer } from "../../../server/test/support/harness.js";
import { ok, staffClient } from "../../../server/test/support/staff-client.js";
import { sessionFor, sign, type TestDevice } from "../../../server/test/offline/captures/support.js";
import {
  browserSkip,
  checkAccessibility,
  launchChromium,
  newUser,
  screenshot,
  signIn,
  type User,
} from "./support/browser.js";
import { startGuard, type GuardUnderTest } from "./support/guard.js";

const DAY = 24 * 3_600_000;

interface Capture {
  sessionId: string;
  clientSessionId: string;
  status: string;
  reason: string | null;
  reviewStatus: string | null;
  reviewNote: string | null;
  consentIds: string[];
}

describe("dashboard Offline capture page in Chromium", { skip: browserSkip }, () => {
  let guard: GuardUnderTest;
  let browser: Browser;
  let dpo: User;
  const users: User[] = [];
  let staff: ReturnType<typeof staffClient>;
  // Client session ids of the synced sessions: two clock_skew ones and one whose signature fails.
  let toRelease = "";
  let toReject = "";
  let forged = "";
  let linkId = "";
  const linkLabel = "Pune branch, counter 3";
  const expired: string[] = [];
  let pending = "";
  /** The IVR calls reported: accepted first, with the withdrawal code the caller heard. */
  const ivrCalls: { artifactId: string; consentId: string | null; withdrawalToken?: string }[] = [];

  /** A service-key call, through the real app. */
  const service = async <T>(method: "GET" | "POST", url: string, payload?: object, status = 200) => {
    const res = await guard.t.request({
      method,
      url,
      headers: {
        ...bearer(guard.seeded.apiKey),
        ...(method === "POST" ? { "idempotency-key": crypto.randomUUID() } : {}),
      },
      ...(payload ? { payload: payload as Record<string, unknown> } : {}),
    });
    assert.equal(res.statusCode, status, res.body);
    return res.json() as T;
  };
  /** The API's own view of the captures, through a staff session of the dpo. */
  const apiCaptures = async (): Promise<Capture[]> =>
    ok<{ captures: Capture[] }>(
      await staff(guard.seeded, "dpo", "GET", "/api/v1/staff/offline/captures?limit=500"),
    ).captures;
  const apiCapture = async (clientSessionId: string) => {
    const found = (await apiCaptures()).find((c) => c.clientSessionId === clientSessionId);
    assert.ok(found, clientSessionId);
    return found;
  };
  const section = (page: Page, name: string) => page.getByRole("region", { name, exact: true });

  before(async () => {
    guard = await startGuard();
    const { t, seeded } = guard;
    const notice = await publishTestNotice(t, seeded);

    // Point-of-sale requests first: two are left unanswered past their 72 hours, then the expiry
    // sweep (a background job in `guard serve`) moves them to the follow-up queue.
    const pos = {
      noticeId: notice.noticeId,
      purpose: "Marketing",
      dataTypes: ["phone"],
      phone: "+91 98765 43210",
    };
    for (let i = 0; i < 2; i++)
      expired.push((await service<{ requestId: string }>("POST", "/api/v1/offline/pos", pos, 201)).requestId);
    t.clock.advance(73 * 3_600_000);
    assert.equal(await expireDuePosRequests(t.db, t.clock.now(), 100), 2);
    pending = (await service<{ requestId: string }>("POST", "/api/v1/offline/pos", pos, 201)).requestId;

    linkId = (
      await service<{ linkId: string }>(
        "POST",
        "/api/v1/offline-consent/links",
        { noticeId: notice.noticeId, purpose: "Marketing", dataTypes: ["phone"], label: linkLabel },
        201,
      )
    ).linkId;

    for (const [partnerCallId, dtmfSequence] of [
      ["ivr-call-accepted", "1"],
      ["ivr-call-refused", "3"],
    ] as const) {
      t.clock.advance(1_000);
      ivrCalls.push(
        await service<(typeof ivrCalls)[number]>(
          "POST",
          "/api/v1/offline/ivr",
          {
            noticeId: notice.noticeId,
            partnerCallId,
            audioRecordingUri: `https://recordings.partner.example/${partnerCallId}.wav`,
            transcript: `Agent: press 1 to agree. Caller pressed ${dtmfSequence}.`,
            locale: "en-IN",
            dtmfSequence,
            callerNumberHash: `sha256:${partnerCallId}`,
            capturedAt: t.clock.now() - 60_000,
            partnerSignature: "partner-sig-v1",
            purpose: "Marketing",
            dataTypes: ["phone"],
          },
          201,
        ),
      );
    }

    // A device enrolled through the API with a key made here; it signs the sessions.
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
    const publicKeySpki = publicKey.export({ type: "spki", format: "der" }).toString("base64");
    const enrolled = await service<{ deviceId: string }>(
      "POST",
      "/api/v1/staff/devices",
      { label: "Ward 4 tablet", channel: "agent_app", publicKeySpki },
      201,
    );
    const device: TestDevice = {
      organizationId: seeded.org.organizationId,
      deviceId: enrolled.deviceId,
      privateKey,
      publicKeySpki,
    };
    const now = t.clock.now();
    const skewed = () => sign(device, sessionFor(device, notice, now, { capturedAtClient: now - 30 * DAY }));
    // Signed by a key the device does not hold: the proof fails, so it can only be rejected.
    const impostor: TestDevice = {
      ...device,
      privateKey: generateKeyPairSync("ec", { namedCurve: "prime256v1" }).privateKey,
    };
    const sessions = [skewed(), skewed(), sign(impostor, sessionFor(device, notice, now))];
    const { results } = await service<{ results: { status: string; reason?: string }[] }>(
      "POST",
      "/api/v1/offline/captures",
      { sessions },
    );
    assert.deepEqual(
      results.map((r) => `${r.status}/${r.reason}`),
      ["quarantined/clock_skew", "quarantined/clock_skew", "quarantined/signature_mismatch"],
    );
    [toRelease, toReject, forged] = sessions.map((s) => s.clientSessionId) as [string, string, string];

    // Signed in after the clock moved, so no session outlives its TTL.
    staff = staffClient(t);
    browser = await launchChromium();
    dpo = await newUser(browser);
    users.push(dpo);
    await signIn(dpo.page, guard, "dpo", "/offline");
    await dpo.page.getByRole("heading", { level: 1, name: "Offline capture" }).waitFor();
  });
  after(async () => {
    for (const u of users) await u.close().catch(() => undefined);
    await browser?.close();
    await guard?.close();
  });

  test("the page is in the side navigation", async () => {
    const nav = dpo.page.getByRole("navigation", { name: "Main" });
    const link = nav.getByRole("link", { name: "Offline capture", exact: true });
    assert.equal(await link.getAttribute("aria-current"), "page");
  });

  test("a dpo releases one quarantined capture (its consents exist) and rejects another", async () => {
    const { page, problems } = dpo;
    const captures = section(page, "Captures to review");
    const row = (clientSessionId: string) => captures.getByRole("row", { name: new RegExp(clientSessionId) });
    // Waiting for review, by default: all three, the device by its label.
    await row(forged).waitFor();
    await row(toRelease).waitFor();
    // The device labels load on their own (the devices list), after the sessions or before them.
    await row(toRelease).getByText("Ward 4 tablet").waitFor();
    assert.ok(await row(toRelease).getByText("Device clock more than 7 days off").isVisible());
    assert.ok(await row(forged).getByText("Signature does not verify").isVisible());
    // A failed signature is never releasable: only Reject.
    await row(forged)
      .getByRole("button", { name: `Reject ${forged}` })
      .waitFor();
    assert.equal(
      await row(forged)
        .getByRole("button", { name: `Release ${forged}` })
        .count(),
      0,
    );

    await row(toRelease)
      .getByRole("button", { name: `Release ${toRelease}` })
      .click();
    const release = page.getByRole("dialog", { name: `Release the session ${toRelease}?` });
    await release.waitFor();
    // The contract requires a note: an empty one is refused at its field.
    await release.getByRole("button", { name: "Release session" }).click();
    await release.locator(".field-error").waitFor();
    assert.equal(await release.getByLabel("Note").getAttribute("aria-invalid"), "true");
    await release.getByLabel("Note").fill("Tablet clock was reset after a battery swap");
    await release.getByRole("button", { name: "Release session" }).click();
    await captures.getByText(`Session ${toRelease} is released: 2 consents were created.`).waitFor();
    const code = captures.getByLabel(`Withdrawal code for ${toRelease}`);
    assert.ok(((await code.textContent()) ?? "").trim().length > 0, "the withdrawal code is shown");
    await row(toRelease).waitFor({ state: "detached" });

    const released = await apiCapture(toRelease);
    assert.equal(released.reviewStatus, "released");
    assert.equal(released.reviewNote, "Tablet clock was reset after a battery swap");
    assert.equal(released.consentIds.length, 2);
    for (const consentId of released.consentIds) {
      const consent = await service<{ consentId: string; source: string }>(
        "GET",
        `/cm/v1/consent/${consentId}`,
      );
      assert.equal(consent.source, "offline");
    }
    await page.getByRole("button", { name: "I have handed it over" }).click();
    assert.equal(await code.count(), 0, "the code is not shown again");

    await row(toReject)
      .getByRole("button", { name: `Reject ${toReject}` })
      .click();
    const reject = page.getByRole("dialog", { name: `Reject the session ${toReject}?` });
    await reject.getByLabel("Note").fill("Nobody at the ward remembers this form");
    await reject.getByRole("button", { name: "Reject session" }).click();
    await captures.getByText(`Session ${toReject} is rejected`).waitFor();
    await row(toReject).waitFor({ state: "detached" });
    const rejected = await apiCapture(toReject);
    assert.equal(rejected.reviewStatus, "rejected_by_staff");
    assert.deepEqual(rejected.consentIds, []);

    // The reviewed sessions under their own filters, with who decided what.
    await captures.getByLabel("Which capture sessions to show").selectOption("released");
    await row(toRelease).getByText("Released").waitFor();
    assert.ok(
      await row(toRelease)
        .getByText(/battery swap/)
        .isVisible(),
    );
    assert.equal(await row(forged).count(), 0);
    await captures.getByLabel("Which capture sessions to show").selectOption("pending");
    await row(forged).waitFor();
    await checkAccessibility(page, "Offline capture (dpo)");
    assert.deepEqual(problems, []);
  });

  test("a dpo disables a QR link; the page shows how links are minted", async () => {
    const { page, problems } = dpo;
    const links = section(page, "QR consent links");
    assert.match(
      (await links.getByLabel("Create a link with curl").textContent()) ?? "",
      new RegExp(`curl -X POST ${guard.origin}/api/v1/offline-consent/links`),
    );
    const row = links.getByRole("row", { name: new RegExp(linkLabel) });
    await row.getByText("Active").waitFor();
    assert.ok(await row.getByText("0 agreed, 0 declined").isVisible());
    await row.getByRole("button", { name: `Disable ${linkLabel}` }).click();
    const dialog = page.getByRole("dialog", { name: `Disable the link “${linkLabel}”?` });
    await dialog.getByRole("button", { name: "Disable link" }).click();
    await links.getByText(`“${linkLabel}” is disabled`).waitFor();
    await row.getByText("Disabled").waitFor();
    assert.equal(await row.getByRole("button", { name: `Disable ${linkLabel}` }).count(), 0);

    const { links: listed } = ok<{ links: { linkId: string; disabledAt: number | null }[] }>(
      await staff(guard.seeded, "dpo", "GET", "/api/v1/staff/offline-consent/links"),
    );
    assert.ok(listed.find((l) => l.linkId === linkId)?.disabledAt, "disabled through the API too");
    assert.deepEqual(problems, []);
  });

  test("a dpo closes an expired point-of-sale request with a note; no phone number is shown", async () => {
    const { page, problems } = dpo;
    const pos = section(page, "Point-of-sale requests");
    const row = (requestId: string) => pos.getByRole("row", { name: new RegExp(requestId) });
    // Expired ones by default: the follow-up queue.
    await row(expired[1]!).waitFor();
    await row(expired[0]!).getByText("Expired").waitFor();
    assert.equal(await row(pending).count(), 0);
    assert.equal(await pos.getByText(/98765|43210/).count(), 0);

    await row(expired[0]!)
      .getByRole("button", { name: `Close ${expired[0]}` })
      .click();
    const dialog = page.getByRole("dialog", { name: `Close the request ${expired[0]}?` });
    await dialog.getByLabel("Note").fill("Called the customer: not interested");
    await dialog.getByRole("button", { name: "Close request" }).click();
    await pos.getByText(`${expired[0]} is closed.`).waitFor();
    await row(expired[0]!).waitFor({ state: "detached" });
    const { requests } = ok<{ requests: { requestId: string; closeNote: string | null }[] }>(
      await staff(guard.seeded, "dpo", "GET", "/api/v1/staff/offline/pos?status=closed"),
    );
    assert.equal(
      requests.find((r) => r.requestId === expired[0])?.closeNote,
      "Called the customer: not interested",
    );

    await pos.getByLabel("Which point-of-sale requests to show").selectOption("closed");
    await row(expired[0]!)
      .getByText(/not interested/)
      .waitFor();
    await pos.getByLabel("Which point-of-sale requests to show").selectOption("pending");
    await row(pending).getByText("Pending").waitFor();
    assert.equal(await row(pending).getByRole("button").count(), 0, "only an expired request closes");
    await screenshot(page, "offline");
    assert.deepEqual(problems, []);
  });

  test("a dpo reads the IVR calls as reported, filters them, and never sees a withdrawal code", async () => {
    const { page, problems } = dpo;
    const ivr = section(page, "IVR calls");
    const row = (partnerCallId: string) => ivr.getByRole("row", { name: new RegExp(partnerCallId) });
    await row("ivr-call-accepted").getByText("Accepted", { exact: true }).waitFor();
    await row("ivr-call-refused").getByText("Refused", { exact: true }).waitFor();
    // Newest receipt first: the refused call came second.
    const order = await ivr.getByRole("rowheader").allTextContents();
    assert.ok(
      order[0]!.includes("ivr-call-refused") && order[1]!.includes("ivr-call-accepted"),
      String(order),
    );
    assert.ok(await row("ivr-call-accepted").getByText(ivrCalls[0]!.consentId!).isVisible());
    assert.equal(await ivr.getByText("Withdrawn", { exact: false }).count(), 0);
    assert.ok(
      await row("ivr-call-refused")
        .getByText("https://recordings.partner.example/ivr-call-refused.wav")
        .isVisible(),
    );
    assert.equal(await ivr.getByRole("link").count(), 0, "a partner's address is text, not a link");
    await row("ivr-call-refused").getByText("Transcript").click();
    await row("ivr-call-refused").getByText("Caller pressed 3.").waitFor();
    assert.equal(await page.getByText(ivrCalls[0]!.withdrawalToken!).count(), 0);

    await ivr.getByLabel("Which IVR calls to show").selectOption("refused");
    await row("ivr-call-accepted").waitFor({ state: "detached" });
    assert.ok(await row("ivr-call-refused").isVisible());
    await ivr.getByLabel("Which IVR calls to show").selectOption("accepted");
    await row("ivr-call-refused").waitFor({ state: "detached" });
    assert.ok(await row("ivr-call-accepted").isVisible());
    assert.equal(await ivr.getByRole("button").count(), 0, "an artefact is never changed");

    // The caller withdraws with the code read out to them: the call shows it, and nothing else moves.
    const withdrawn = await guard.t.request({
      method: "POST",
      url: "/api/v1/offline/withdrawals",
      payload: { withdrawalToken: ivrCalls[0]!.withdrawalToken },
    });
    assert.equal(withdrawn.statusCode, 200, withdrawn.body);
    await page.reload();
    await row("ivr-call-accepted").getByText("Withdrawn", { exact: false }).waitFor();
    await row("ivr-call-accepted").getByText("Accepted", { exact: true }).waitFor();
    await checkAccessibility(page, "Offline capture, IVR calls");
    assert.deepEqual(problems, []);
  });

  test("a viewer reads every section but gets no write controls", async () => {
    const viewer = await newUser(browser);
    users.push(viewer);
    const { page, problems } = viewer;
    await signIn(page, guard, "viewer", "/offline");
    await page.getByRole("heading", { level: 1, name: "Offline capture" }).waitFor();
    // Each section's rows, not just its heading: the read-only notes render before the lists load.
    await section(page, "Captures to review")
      .getByRole("row", { name: new RegExp(forged) })
      .waitFor();
    await section(page, "QR consent links").getByRole("rowheader", { name: linkLabel }).waitFor();
    await section(page, "Point-of-sale requests")
      .getByRole("row", { name: new RegExp(expired[1]!) })
      .waitFor();
    await section(page, "IVR calls")
      .getByRole("row", { name: /ivr-call-refused/ })
      .waitFor();
    assert.equal(await page.getByText(/can read this page but not change it/).count(), 3);
    assert.equal(await page.getByRole("button", { name: /^(Release|Reject|Disable|Close) / }).count(), 0);
    await checkAccessibility(page, "Offline capture (viewer)");
    await screenshot(page, "offline-viewer");
    assert.deepEqual(problems, []);
  });

  test("with the capabilities off, each section names the one that is off", async () => {
    const capabilities = {
      offline_agent_capture: false,
      offline_consent_links: false,
      offline_async_consent: false,
    };
    ok(await staff(guard.seeded, "admin", "PUT", "/api/v1/staff/capabilities", { capabilities }));
    const { page, problems } = dpo;
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "Offline capture" }).waitFor();
    for (const [name, capability] of [
      ["Captures to review", "offline_agent_capture"],
      ["QR consent links", "offline_consent_links"],
      ["Point-of-sale requests", "offline_async_consent"],
      ["IVR calls", "offline_async_consent"],
    ] as const) {
      const note = section(page, name).getByText(/is switched off for this organisation/);
      await note.waitFor();
      assert.ok(await note.getByText(capability, { exact: true }).isVisible(), capability);
      assert.equal(await section(page, name).getByRole("table").count(), 0);
    }
    await checkAccessibility(page, "Offline capture, capabilities off");
    assert.deepEqual(problems, []);
  });
});
