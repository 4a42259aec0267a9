// The consent domain's per-organisation settings, read from organizations.settings (JSONB):
//
//   blockTrackingForChildren   Refuse tracking purposes for a verified child (DPDP s.9(3)) with
//                              403 MINOR_TRACKING_BLOCKED.
//   anonymousConsentRateLimit  { perAddress, perOrganization, windowMs }: budgets of the public
//                              anonymous-capture route.
//
// Defaults and ranges are DEFAULT_CONSENT_SETTINGS and CONSENT_SETTING_RANGES below.
// A missing or ill-typed value means the default, so a bad setting never breaks consent capture.
// Staff change them with PATCH /api/v1/staff/organization/settings or `guard org settings`
// (settings/organization-settings.ts), which validate against the ranges below.
//
// Every anonymous capture reads them, so they are served from a per-instance cache that the
// settings change announces (topic organization_settings) in its transaction.
import { readStoredSettings } from "../accounts/store.js";
import type { Queryable } from "../db/database.js";
import { processInvalidations } from "../db/invalidation.js";
import { ReadThroughCache } from "../db/read-through-cache.js";
import { intIn } from "../lib/int-in.js";

export interface ConsentSettings {
  blockTrackingForChildren: boolean;
  anonymousConsentRateLimit: { perAddress: number; perOrganization: number; windowMs: number };
}

export const DEFAULT_CONSENT_SETTINGS: ConsentSettings = {
  blockTrackingForChildren: true,
  anonymousConsentRateLimit: { perAddress: 120, perOrganization: 6000, windowMs: 60_000 },
};

/** The accepted range of each integer setting; outside it the default applies (and writes are refused). */
export const CONSENT_SETTING_RANGES = {
  anonymousConsentRateLimit: {
    perAddress: { min: 1, max: 1_000_000 },
    perOrganization: { min: 1, max: 100_000_000 },
    windowMs: { min: 1000, max: 86_400_000 },
  },
} as const;

export function parseConsentSettings(settings: unknown): ConsentSettings {
  const raw = (settings && typeof settings === "object" ? settings : {}) as Record<string, unknown>;
  const limits = (
    raw.anonymousConsentRateLimit && typeof raw.anonymousConsentRateLimit === "object"
      ? raw.anonymousConsentRateLimit
      : {}
  ) as Record<string, unknown>;
  const defaults = DEFAULT_CONSENT_SETTINGS.anonymousConsentRateLimit;
  const ranges = CONSENT_SETTING_RANGES.anonymousConsentRateLimit;
  return {
    blockTrackingForChildren:
      typeof raw.blockTrackingForChildren === "boolean"
        ? raw.blockTrackingForChildren
        : DEFAULT_CONSENT_SETTINGS.blockTrackingForChildren,
    anonymousConsentRateLimit: {
      perAddress: intIn(limits.perAddress, ranges.perAddress, defaults.perAddress),
      perOrganization: intIn(limits.perOrganization, ranges.perOrganization, defaults.perOrganization),
      windowMs: intIn(limits.windowMs, ranges.windowMs, defaults.windowMs),
    },
  };
}

// Read from code handed only `db`, so the cache listens to every feed of the process (see
// db/invalidation.ts); an unknown organisation is never stored.
const settingsCache = new ReadThroughCache<{ organizationId: string; settings: ConsentSettings }>(
  processInvalidations,
  { topic: "organization_settings", max: 10_000, ttlMs: 60_000 },
);

/** The organisation's consent settings; undefined when there is no such organisation. */
export async function readConsentSettings(
  db: Queryable,
  organizationId: string,
): Promise<ConsentSettings | undefined> {
  const entry = await settingsCache.get(organizationId, async () => {
    const stored = await readStoredSettings(db, organizationId);
    return stored === undefined ? undefined : { organizationId, settings: parseConsentSettings(stored) };
  });
  return entry?.settings;
}
