// A real, listening Guard for the browser tests: the server harness's app (same database engine
// choice, GUARD_TEST_DB=pglite|postgres, same contract checks on every response) bound to a loopback
// port, with one organisation that published a bilingual notice, registered the test page's host and
// subscribed a webhook receiver to consent events, and a webhook worker delivering to it.
import type { AddressInfo } from "node:net";
import { loadBannerScript } from "../../../../server/src/banner/script.js";
import { parseNoticeDraft, publishNotice } from "../../../../server/src/notices/notices.js";
import { SecretBox } from "../../../../server/src/lib/secret-box.js";
import { WebhookWorker } from "../../../../server/src/webhooks/worker.js";
import {
  seedOrganization,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../../../../server/test/support/harness.js";
import { ok, staffClient } from "../../../../server/test/support/staff-client.js";
import { startReceiver, type Receiver } from "../../../../server/test/support/webhook-receiver.js";

/** The notice every browser test shows: Rule 3 texts in English and Hindi, two purposes. */
export const NOTICE = {
  key: "default",
  itemized: [
    {
      purpose: "Analytics",
      personalDataDescription: "A device identifier, to count visits to our pages.",
      dataTypes: ["device-id"],
    },
    { purpose: "Marketing", personalDataDescription: "Your email address, to send you offers." },
  ],
  content: {
    en: {
      title: "How Test Shop uses your data",
      body: "We use your data only for the purposes listed below, and only with your consent.",
      withdrawal: "You can withdraw your consent at any time from Privacy choices on this site.",
      rights: "You can ask us for a summary of your data, and to correct or erase it.",
      complaint: "You can complain to the Data Protection Board of India.",
    },
    hi: {
      title: "टेस्ट शॉप आपके डेटा का उपयोग कैसे करता है",
      body: "हम आपके डेटा का उपयोग केवल नीचे दिए गए उद्देश्यों के लिए और केवल आपकी सहमति से करते हैं।",
      withdrawal: "आप इस साइट पर गोपनीयता विकल्पों से कभी भी अपनी सहमति वापस ले सकते हैं।",
      rights: "आप हमसे अपने डेटा का सारांश माँग सकते हैं, और उसे सुधारने या मिटाने को कह सकते हैं।",
      complaint: "आप भारतीय डेटा संरक्षण बोर्ड से शिकायत कर सकते हैं।",
    },
  },
} as const;

/** The data types recorded for a purpose: the notice's own, else what the banner falls back to. */
export const DATA_TYPES: Record<string, string[]> = {
  Analytics: ["device-id"],
  Marketing: ["personal-data"],
};

export interface GuardUnderTest {
  t: TestApp;
  seeded: SeededOrg;
  /** `http://127.0.0.1:<port>`: where the page loads the banner from and where it calls. */
  origin: string;
  noticeId: string;
  noticeVersion: number;
  receiver: Receiver;
  /** Staff calls as the organisation's dpo. */
  staff: (
    method: "GET" | "POST" | "PUT" | "DELETE",
    url: string,
    payload?: unknown,
  ) => ReturnType<ReturnType<typeof staffClient>>;
  close(): Promise<void>;
}

/** Starts Guard on a loopback port, seeded for `pageHost` (the host the test page is served from). */
export async function startGuard(pageHost = "127.0.0.1"): Promise<GuardUnderTest> {
  // The real build, not the harness's stand-in (ensureBannerBuilt() has run first).
  const bannerScript = loadBannerScript();
  if (!bannerScript) throw new Error("banner/dist/guard.js is missing: build the banner first");
  const t = await startTestApp({}, { bannerScript });
  let worker: WebhookWorker | undefined;
  let receiver: Receiver | undefined;
  try {
    await t.app.listen({ port: 0, host: "127.0.0.1" });
    const { port } = t.app.server.address() as AddressInfo;
    const seeded = await seedOrganization(t);
    const client = staffClient(t);
    const staff: GuardUnderTest["staff"] = (method, url, payload) =>
      client(seeded, "dpo", method, url, payload);

    const { noticeId, version } = await publishNotice(
      t.db,
      seeded.org.organizationId,
      parseNoticeDraft(NOTICE),
      t.clock.now(),
    );
    ok(await staff("PUT", `/api/v1/staff/domains/${pageHost}`));

    receiver = await startReceiver();
    ok(
      await staff("POST", "/api/v1/staff/webhooks", {
        url: receiver.url,
        events: ["consent.given", "consent.withdrawn"],
      }),
      201,
    );
    // What server.ts runs beside every instance; polled often so a test waits milliseconds.
    worker = new WebhookWorker({
      db: t.db,
      clock: t.clock,
      secrets: new SecretBox(t.config.secretsKey),
      pollIntervalMs: 50,
    });
    worker.start();

    const started = { worker, receiver };
    return {
      t,
      seeded,
      origin: `http://127.0.0.1:${port}`,
      noticeId,
      noticeVersion: version,
      receiver,
      staff,
      close: async () => {
        await started.worker.stop();
        await started.receiver.close();
        await t.close();
      },
    };
  } catch (error) {
    await worker?.stop();
    await receiver?.close();
    await t.close();
    throw error;
  }
}

/** Resolves once `check` holds, polling real time; fails naming `what` after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T> | T,
  timeoutMs = 10_000,
): Promise<NonNullable<Exclude<T, false>>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<Exclude<T, false>>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
