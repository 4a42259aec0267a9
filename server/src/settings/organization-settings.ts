// The organisation's settings as one document: what the consent and gate domains read from
// organizations.settings (JSONB), with their defaults filled in, and the one validated way to change
// them (the staff route and `guard org settings` both come through here).
//
// The consent and gate parsers stay the single source of defaults and ranges: reading composes
// them, and writing validates against the ranges they export, so a value this module accepts is
// always a value they honour.
import { readStoredSettings, writeStoredSettings } from "../accounts/store.js";
import { appendAuditEntry } from "../audit/chain.js";
import { CONSENT_SETTING_RANGES, parseConsentSettings, type ConsentSettings } from "../consent/settings.js";
import type { Queryable } from "../db/database.js";
import { announceInvalidation } from "../db/invalidation.js";
import { GATE_SETTING_RANGES, parseGateSettings, type GateSettings } from "../gate/settings.js";
import { notFound, validationError } from "../lib/failure.js";

export interface OrganizationSettings {
  blockTrackingForChildren: boolean;
  anonymousConsentRateLimit: ConsentSettings["anonymousConsentRateLimit"];
  consentGate: GateSettings;
  /** Epoch ms of the last change through this module; null while nothing was ever set. */
  updatedAt: number | null;
}

export interface SettingsActor {
  kind: "staff" | "service" | "system";
  /** staff_id, api_key_id, or `cli:<OS user>` for the command line. */
  id: string | null;
}

type Leaf = { kind: "boolean" } | { kind: "integer"; min: number; max: number };
type Group = Record<string, Leaf>;

// Every settable path. A key missing here is refused on write, so a typo never silently does nothing.
const SETTABLE: Record<string, Leaf | Group> = {
  blockTrackingForChildren: { kind: "boolean" },
  anonymousConsentRateLimit: {
    perAddress: { kind: "integer", ...CONSENT_SETTING_RANGES.anonymousConsentRateLimit.perAddress },
    perOrganization: { kind: "integer", ...CONSENT_SETTING_RANGES.anonymousConsentRateLimit.perOrganization },
    windowMs: { kind: "integer", ...CONSENT_SETTING_RANGES.anonymousConsentRateLimit.windowMs },
  },
  consentGate: {
    windowMs: { kind: "integer", ...GATE_SETTING_RANGES.windowMs },
    denyThreshold: { kind: "integer", ...GATE_SETTING_RANGES.denyThreshold },
  },
};

/** The key inside organizations.settings that records the last change (not a setting itself). */
const UPDATED_AT_KEY = "updatedAt";

export interface SettingAssignment {
  /** `blockTrackingForChildren`, `consentGate.windowMs`, ... */
  path: string;
  value: boolean | number;
}

/** Every settable path with its type and range, for help texts. */
export function settablePaths(): { path: string; leaf: Leaf }[] {
  const out: { path: string; leaf: Leaf }[] = [];
  for (const [key, spec] of Object.entries(SETTABLE)) {
    if (isLeaf(spec)) out.push({ path: key, leaf: spec });
    else for (const [sub, leaf] of Object.entries(spec)) out.push({ path: `${key}.${sub}`, leaf });
  }
  return out;
}

const isLeaf = (spec: Leaf | Group): spec is Leaf => typeof (spec as Leaf).kind === "string";

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function namesOf(specs: Record<string, unknown>): string {
  return Object.keys(specs).join(", ");
}

function checkLeaf(path: string, leaf: Leaf, value: unknown): boolean | number {
  if (leaf.kind === "boolean") {
    if (typeof value !== "boolean") throw validationError(path, `${path} must be true or false`);
    return value;
  }
  if (typeof value !== "number" || !Number.isInteger(value) || value < leaf.min || value > leaf.max) {
    throw validationError(path, `${path} must be a whole number from ${leaf.min} to ${leaf.max}`);
  }
  return value;
}

/**
 * Validates a partial settings document (the PATCH body) into assignments. Refuses, naming the
 * field: a non-object, an empty object at either level, an unknown key at either level, an
 * ill-typed or out-of-range value.
 */
export function parseSettingsPatch(input: unknown): SettingAssignment[] {
  if (!isPlainObject(input)) throw validationError("body", "The body must be an object of settings");
  const keys = Object.keys(input);
  if (keys.length === 0) {
    throw validationError("body", `Name at least one setting to change: ${namesOf(SETTABLE)}`);
  }
  const assignments: SettingAssignment[] = [];
  for (const key of keys) {
    // Object.hasOwn, so `__proto__` or `toString` are unknown keys like any other.
    if (!Object.hasOwn(SETTABLE, key)) {
      throw validationError(key, `${key} is not a setting; the settings are ${namesOf(SETTABLE)}`);
    }
    const spec = SETTABLE[key]!;
    const value = input[key];
    if (isLeaf(spec)) {
      assignments.push({ path: key, value: checkLeaf(key, spec, value) });
      continue;
    }
    if (!isPlainObject(value)) {
      throw validationError(key, `${key} must be an object with any of ${namesOf(spec)}`);
    }
    const subKeys = Object.keys(value);
    if (subKeys.length === 0) throw validationError(key, `${key} must name at least one of ${namesOf(spec)}`);
    for (const sub of subKeys) {
      const path = `${key}.${sub}`;
      if (!Object.hasOwn(spec, sub)) {
        throw validationError(path, `${path} is not a setting; ${key} has ${namesOf(spec)}`);
      }
      assignments.push({ path, value: checkLeaf(path, spec[sub]!, value[sub]) });
    }
  }
  return assignments;
}

/** The settings in force for a stored organizations.settings value (defaults filled in). */
export function settingsInForce(stored: unknown): OrganizationSettings {
  const consent = parseConsentSettings(stored);
  const updatedAt = isPlainObject(stored) ? stored[UPDATED_AT_KEY] : undefined;
  return {
    blockTrackingForChildren: consent.blockTrackingForChildren,
    anonymousConsentRateLimit: consent.anonymousConsentRateLimit,
    consentGate: parseGateSettings(stored),
    updatedAt: typeof updatedAt === "number" && Number.isSafeInteger(updatedAt) ? updatedAt : null,
  };
}

/** The organisation's settings in force; undefined when there is no such organisation. */
export async function readOrganizationSettings(
  db: Queryable,
  organizationId: string,
): Promise<OrganizationSettings | undefined> {
  const stored = await readStoredSettings(db, organizationId);
  return stored === undefined ? undefined : settingsInForce(stored);
}

/**
 * Applies a partial settings document through `tx` and returns the settings now in force.
 *
 * The organisation row is locked FOR UPDATE and the merge is made on the JSON read under that lock,
 * so two concurrent changes of different fields both survive. Keys this module does not know
 * (another domain's, or older ones) are kept as they are. Setting what is already stored writes
 * nothing and adds nothing to the audit chain, so a retried request is harmless.
 */
export async function updateOrganizationSettings(
  tx: Queryable,
  input: { organizationId: string; patch: unknown; actor: SettingsActor },
  now: number,
): Promise<OrganizationSettings> {
  const assignments = parseSettingsPatch(input.patch);
  const stored = await readStoredSettings(tx, input.organizationId, { forUpdate: true });
  if (stored === undefined) throw notFound("No such organisation");
  const before = settingsInForce(stored);
  // A stored value that is not an object cannot hold settings (the parsers already ignore it).
  const merged: Record<string, unknown> = isPlainObject(stored) ? structuredClone(stored) : {};
  let changed = false;
  for (const { path, value } of assignments) {
    const segments = path.split(".");
    const leaf = segments.pop()!;
    let node = merged;
    for (const segment of segments) {
      if (!isPlainObject(node[segment])) node[segment] = {};
      node = node[segment] as Record<string, unknown>;
    }
    if (node[leaf] !== value) {
      node[leaf] = value;
      changed = true;
    }
  }
  if (!changed) return before;
  merged[UPDATED_AT_KEY] = now;
  await writeStoredSettings(tx, input.organizationId, merged);
  // Every instance's cached settings (consent/settings.ts) drop theirs when this commits.
  await announceInvalidation(tx, { topic: "organization_settings", organizationId: input.organizationId });
  const after = settingsInForce(merged);
  const { updatedAt: _before, ...from } = before;
  const { updatedAt: _after, ...to } = after;
  await appendAuditEntry(
    tx,
    {
      organizationId: input.organizationId,
      entryType: "organization.settings_changed",
      subjectId: input.organizationId,
      payload: {
        set: Object.fromEntries(assignments.map((a) => [a.path, a.value])),
        from,
        to,
        actorKind: input.actor.kind,
        actorId: input.actor.id,
      },
    },
    now,
  );
  return after;
}
