// The Consent Gate's per-organisation settings, read from organizations.settings (JSONB):
//
//   consentGate.windowMs       rolling window of bypass alerts, ms
//   consentGate.denyThreshold  in-window denies of one consent that make an alert
//
// Defaults and ranges are DEFAULT_GATE_SETTINGS and GATE_SETTING_RANGES below. A missing or
// out-of-range value means the default. Staff change them with
// PATCH /api/v1/staff/organization/settings or `guard org settings` (settings/organization-settings.ts),
// which validate against GATE_SETTING_RANGES.
import { readStoredSettings } from "../accounts/store.js";
import type { Queryable } from "../db/database.js";
import { intIn } from "../lib/int-in.js";

export interface GateSettings {
  windowMs: number;
  denyThreshold: number;
}

export const DEFAULT_GATE_SETTINGS: GateSettings = { windowMs: 3_600_000, denyThreshold: 3 };

/** The accepted range of each setting; outside it the default applies (and writes are refused). */
export const GATE_SETTING_RANGES = {
  // One second to thirty days.
  windowMs: { min: 1000, max: 30 * 86_400_000 },
  denyThreshold: { min: 1, max: 1_000_000 },
} as const;

export function parseGateSettings(settings: unknown): GateSettings {
  const raw = (settings && typeof settings === "object" ? settings : {}) as Record<string, unknown>;
  const gate = (raw.consentGate && typeof raw.consentGate === "object" ? raw.consentGate : {}) as Record<
    string,
    unknown
  >;
  return {
    windowMs: intIn(gate.windowMs, GATE_SETTING_RANGES.windowMs, DEFAULT_GATE_SETTINGS.windowMs),
    denyThreshold: intIn(
      gate.denyThreshold,
      GATE_SETTING_RANGES.denyThreshold,
      DEFAULT_GATE_SETTINGS.denyThreshold,
    ),
  };
}

export async function readGateSettings(db: Queryable, organizationId: string): Promise<GateSettings> {
  return parseGateSettings(await readStoredSettings(db, organizationId));
}
