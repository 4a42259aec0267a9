// The demo organisation `npm start` creates on first run, so a newcomer sees something: slug
// `demo`, a published bilingual (English/Hindi) notice covering the DPDP Rule 3 items, localhost
// and 127.0.0.1 registered for the banner (the demo shop page, /demo/shop), a staff admin with a random one-time password and a service API key,
// both printed once (only their hashes are stored).
import { randomBytes } from "node:crypto";
import { createApiKey } from "../accounts/api-keys.js";
import { createOrganization, findOrganizationBySlug } from "../accounts/organizations.js";
import { createStaffUser } from "../accounts/staff.js";
import { registerDomain } from "../banner/banner-config.js";
import type { Database } from "../db/database.js";
import { parseNoticeDraft, publishNotice } from "../notices/notices.js";

export const DEMO_SLUG = "demo";
export const DEMO_ADMIN_EMAIL = "admin@demo.example";
/** The name of the service key the demo is created with (and `guard demo reset-credentials` adds). */
export const DEMO_KEY_NAME = "demo backend";

export const DEMO_NOTICE = {
  key: "default",
  itemized: [
    {
      purpose: "Account",
      personalDataDescription: "Name, email address and mobile number, to create and run your account.",
      dataTypes: ["name", "email", "phone"],
    },
    {
      purpose: "Marketing",
      personalDataDescription: "Email address, to send offers you asked for. Optional.",
      dataTypes: ["email"],
    },
    {
      purpose: "Analytics",
      personalDataDescription:
        "Pages you visit and the device you use, to learn which pages help shoppers. Optional.",
      tracking: true,
      dataTypes: ["page-views", "device-info"],
    },
  ],
  content: {
    en: {
      title: "How Demo Fiduciary uses your personal data",
      body: "We process the personal data listed against each purpose only for that purpose, and only with your consent.",
      withdrawal: "You can withdraw consent at any time from Settings > Privacy, as easily as you gave it.",
      rights:
        "You may ask for a summary of your data, its correction or erasure, and nominate someone to act for you. Write to dpo@demo.example.",
      complaint:
        "If we do not resolve your grievance, you may complain to the Data Protection Board of India.",
    },
    hi: {
      title: "डेमो फ़िड्यूशियरी आपके व्यक्तिगत डेटा का उपयोग कैसे करता है",
      body: "हम प्रत्येक उद्देश्य के सामने सूचीबद्ध व्यक्तिगत डेटा को केवल उसी उद्देश्य के लिए और केवल आपकी सहमति से संसाधित करते हैं।",
      withdrawal:
        "आप सेटिंग्स > गोपनीयता से किसी भी समय अपनी सहमति उतनी ही आसानी से वापस ले सकते हैं जितनी आसानी से आपने दी थी।",
      rights:
        "आप अपने डेटा का सारांश, उसका सुधार या मिटाना माँग सकते हैं, और अपनी ओर से कार्य करने के लिए किसी को नामित कर सकते हैं। dpo@demo.example पर लिखें।",
      complaint: "यदि हम आपकी शिकायत का समाधान नहीं करते हैं, तो आप भारतीय डेटा संरक्षण बोर्ड से शिकायत कर सकते हैं।",
    },
  },
};

export interface DemoSeed {
  organizationId: string;
  noticeId: string;
  adminEmail: string;
  adminPassword: string;
  apiKey: string;
}

/** Creates the demo organisation unless it exists; returns the one-time secrets when it created it. */
export async function seedDemo(db: Database, now: number): Promise<DemoSeed | undefined> {
  if (await findOrganizationBySlug(db, DEMO_SLUG)) return undefined;
  const adminPassword = randomBytes(12).toString("base64url");
  const { org, apiKey } = await db.transaction(async (tx) => {
    const org = await createOrganization(tx, { slug: DEMO_SLUG, name: "Demo Fiduciary Pvt Ltd" }, now);
    await createStaffUser(
      tx,
      { organizationId: org.organizationId, email: DEMO_ADMIN_EMAIL, role: "admin", password: adminPassword },
      now,
    );
    // Both names of this machine, so the demo shop shows the banner whichever one the browser uses.
    await registerDomain(tx, org.organizationId, "localhost", now);
    await registerDomain(tx, org.organizationId, "127.0.0.1", now);
    const apiKey = await createApiKey(
      tx,
      { organizationId: org.organizationId, name: DEMO_KEY_NAME, createdBy: null },
      now,
    );
    return { org, apiKey };
  });
  const notice = await publishNotice(db, org.organizationId, parseNoticeDraft(DEMO_NOTICE), now);
  return {
    organizationId: org.organizationId,
    noticeId: notice.noticeId,
    adminEmail: DEMO_ADMIN_EMAIL,
    adminPassword,
    apiKey: apiKey.key,
  };
}
