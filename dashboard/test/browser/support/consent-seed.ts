// Consents for the Overview and Export browser tests, recorded through Guard's own public routes
// (as a banner and a back end would): a published notice, principal consents by email, anonymous
// consents, and withdrawals by the service. Answers what was stored, for the tests to compare with.
import assert from "node:assert/strict";
import {
  anonymousConsent,
  principal,
  publishTestNotice,
  recordConsent,
} from "../../../../server/test/support/consent-fixtures.js";
import { bearer } from "../../../../server/test/support/harness.js";
import type { GuardUnderTest } from "./guard.js";

export interface SeededConsent {
  consentId: string;
  purpose: string;
  withdrawn: boolean;
}

/**
 * `given` consents per purpose (principal consents first, then anonymous ones), then withdraws the
 * first `withdrawn[purpose]` of each purpose one second later on the server's clock.
 */
export async function seedConsents(
  guard: GuardUnderTest,
  given: Record<string, number>,
  withdrawn: Record<string, number> = {},
): Promise<SeededConsent[]> {
  const { t, seeded } = guard;
  const { noticeId } = await publishTestNotice(t, seeded);
  const made: SeededConsent[] = [];
  let serial = 0;
  for (const [purpose, count] of Object.entries(given)) {
    for (let i = 0; i < count; i++) {
      serial += 1;
      const email = `person-${serial}@${seeded.org.slug}.example`;
      if (serial % 2 === 1) await principal(t, seeded, `person-${serial}`, email);
      const res =
        serial % 2 === 1
          ? await recordConsent(t, seeded, {
              email,
              noticeId,
              purpose,
              dataTypes: ["email"],
            })
          : await anonymousConsent(t, {
              organizationId: seeded.org.organizationId,
              noticeId,
              purpose,
              dataTypes: ["email"],
              anonymousId: `guest-${serial}`,
            });
      assert.equal(res.statusCode, 201, res.body);
      made.push({ consentId: (res.json() as { consentId: string }).consentId, purpose, withdrawn: false });
    }
  }
  t.clock.advance(1000);
  for (const [purpose, count] of Object.entries(withdrawn)) {
    for (const consent of made.filter((c) => c.purpose === purpose).slice(0, count)) {
      const res = await t.request({
        method: "DELETE",
        url: `/cm/v1/consent/${consent.consentId}`,
        headers: bearer(seeded.apiKey),
      });
      assert.equal(res.statusCode, 200, res.body);
      consent.withdrawn = true;
    }
  }
  return made;
}

/** The calendar day of `epochMs` in India (the browser tests' time zone), as a date input's value. */
export function istDay(epochMs: number): string {
  return new Date(epochMs + 330 * 60_000).toISOString().slice(0, 10);
}
