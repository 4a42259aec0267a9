// Per-organisation capabilities (CONTRACT.md): every capability is on by default and an admin may
// switch it off. A switched-off capability's routes answer 404 NOT_FOUND as if they did not exist
// (contract 1.6.0's "returns 404 while its flag is off"); the check is central (http/app.ts), driven
// by the operation table below, so a route module is covered by being listed here. A few
// capabilities gate behaviour rather than routes (decision recording, bypass alerts, statutory
// denial, link redemption); their domain code asks `capabilityEnabled` and the contract says what
// the route does while they are off.
//
// State lives in organizations.capabilities as {"name": false} for each capability switched off;
// absent means on, so a capability added later starts on for every organisation. Gated requests
// read it through CapabilityCache; a change is announced in its transaction so every instance's
// cache drops it on commit (db/invalidation.ts).
import type { Queryable } from "../db/database.js";
import { announceInvalidation, type InvalidationFeed } from "../db/invalidation.js";
import { ReadThroughCache } from "../db/read-through-cache.js";
import { LRUCache } from "lru-cache";

export interface CapabilityDefinition {
  description: string;
  /** operationIds answering 404 while the capability is off (some may not be implemented yet). */
  operations: readonly string[];
}

// Names follow contract 1.6.0's flags (`dpdp_<name>_enabled`), shortened where the flag said "api".
export const CAPABILITIES = {
  cm_api: {
    description: "The /cm/v1 consent-manager API: record, read and withdraw consent by email.",
    operations: ["recordConsent", "getConsent", "withdrawConsent"],
  },
  mobile_api: {
    description:
      "The mobile and web surface: public organisation, notice, banner and widget reads, the token " +
      "broker, anonymous capture and linking, principal self-service, and the staff DSR and " +
      "grievance queues.",
    operations: [
      "getOrgBySlug",
      "getNoticesForOrg",
      "getNoticeById",
      "getBannerConfig",
      "getWidgetConfig",
      "brokerToken",
      "giveConsentAnonymous",
      "linkAnonymousConsent",
      "listDsrRequestsForCurrentUser",
      "createDsrRequest",
      "listGrievancesForCurrentUser",
      "createGrievance",
      "getNomination",
      "upsertNomination",
      "revokeNomination",
      "verifyParent",
      "staffListDsrRequests",
      "staffListStatutoryBasisSuggestions",
      "staffListGrievances",
    ],
  },
  cm_inbound_signals: {
    description: "Inbound signals from registered Consent Managers (POST /api/v1/cm/signal).",
    operations: ["receiveCmSignal"],
  },
  consent_gate: {
    description: "The Consent Gate stop-processing check (POST /api/v1/consent/verify).",
    operations: ["verifyConsentGate"],
  },
  consent_gate_decision_audit: {
    description:
      "Recording of Consent Gate decisions. While off, verify records nothing and the decision log " +
      "lists no new decisions (not an error).",
    operations: [],
  },
  consent_gate_audit: {
    description: "Reading the Consent Gate decision log and bypass alerts over the API.",
    operations: ["listConsentGateDecisions", "listConsentGateBypassAlerts"],
  },
  consent_gate_bypass_alerts: {
    description:
      "Bypass detection. While off, the alerts route answers an empty list (windowMs and " +
      "denyThreshold are still given), not an error.",
    operations: [],
  },
  retention_api: {
    description: "The retention-due register (GET /api/v1/retention/due).",
    operations: ["listDueRetentions"],
  },
  breach_register_api: {
    description: "The breach register (GET /api/v1/breaches).",
    operations: ["listBreaches"],
  },
  cross_border_api: {
    description: "The cross-border transfer register (GET /api/v1/cross-border/transfers).",
    operations: ["listCrossBorderTransfers"],
  },
  offline_consent_links: {
    description: "Creating offline consent links and QR codes (POST /api/v1/offline-consent/links).",
    operations: ["createOfflineConsentLink"],
  },
  offline_consent_bridge: {
    description:
      "Redeeming offline consent links at /offline-consent/{token}; links are not redeemable while off.",
    operations: [],
  },
  offline_agent_capture: {
    description: "Signed captures from enrolled agent devices (POST /api/v1/offline/captures).",
    operations: ["syncOfflineCaptures"],
  },
  offline_async_consent: {
    description: "Point-of-sale and IVR consent (POST /api/v1/offline/pos, POST /api/v1/offline/ivr).",
    operations: ["createPosConsentRequest", "recordIvrConsentArtifact"],
  },
  dsr_statutory_denial: {
    description:
      "Denying an erasure request on a statutory basis. While off, the denial route answers 400 " +
      "and the suggestions route an empty list (as in contract 1.6.0), not 404.",
    operations: [],
  },
} as const satisfies Record<string, CapabilityDefinition>;

export type CapabilityName = keyof typeof CAPABILITIES;

export const CAPABILITY_NAMES = Object.keys(CAPABILITIES) as CapabilityName[];

export function isCapabilityName(name: string): name is CapabilityName {
  return Object.hasOwn(CAPABILITIES, name);
}

const BY_OPERATION = new Map<string, CapabilityName>();
for (const name of CAPABILITY_NAMES) {
  for (const operationId of CAPABILITIES[name].operations) {
    if (BY_OPERATION.has(operationId)) throw new Error(`${operationId} is gated by two capabilities`);
    BY_OPERATION.set(operationId, name);
  }
}

/** The capability that gates an operation, if any. */
export function capabilityForOperation(operationId: string): CapabilityName | undefined {
  return BY_OPERATION.get(operationId);
}

/** The switched-off map as stored; `undefined` when the organisation does not exist. */
export type CapabilityOverrides = Partial<Record<string, boolean>>;

export const isOn = (overrides: CapabilityOverrides, name: CapabilityName): boolean =>
  overrides[name] !== false;

export async function readCapabilityOverrides(
  db: Queryable,
  organizationId: string,
): Promise<CapabilityOverrides | undefined> {
  const [row] = await db.query<{ capabilities: CapabilityOverrides }>(
    "SELECT capabilities FROM organizations WHERE organization_id = $1",
    [organizationId],
  );
  return row?.capabilities;
}

/** readCapabilityOverrides for the request path: one read per organisation per instance. */
export class CapabilityCache {
  private readonly cache: ReadThroughCache<{ organizationId: string; overrides: CapabilityOverrides }>;
  /**
   * Which organisation owns a notice or a domain group, for public routes that name one of those.
   * Ownership is fixed for a record's life, so entries need no invalidation; a record deleted
   * since only means its organisation's switches are checked before the handler answers 404.
   */
  private readonly owners = new LRUCache<string, string>({ max: 50_000 });

  constructor(feed: InvalidationFeed) {
    this.cache = new ReadThroughCache(feed, { topic: "capabilities", max: 10_000, ttlMs: 60_000 });
  }

  /** The owning organisation of the record `key` names, `load`ed once; misses are not kept. */
  async ownerOf(key: string, load: () => Promise<string | undefined>): Promise<string | undefined> {
    const known = this.owners.get(key);
    if (known !== undefined) return known;
    const owner = await load();
    if (owner !== undefined) this.owners.set(key, owner);
    return owner;
  }

  /** The organisation's cached switches, without reading them (see ReadThroughCache.peek). */
  peek(organizationId: string): CapabilityOverrides | undefined {
    return this.cache.peek(organizationId)?.overrides;
  }

  async read(db: Queryable, organizationId: string): Promise<CapabilityOverrides | undefined> {
    const entry = await this.cache.get(organizationId, async () => {
      const overrides = await readCapabilityOverrides(db, organizationId);
      return overrides && { organizationId, overrides };
    });
    return entry?.overrides;
  }
}

/** Whether a capability is on for an organisation (behavioural capabilities ask this). */
export async function capabilityEnabled(
  db: Queryable,
  organizationId: string,
  name: CapabilityName,
): Promise<boolean> {
  const overrides = await readCapabilityOverrides(db, organizationId);
  return overrides === undefined ? false : isOn(overrides, name);
}

export interface CapabilityState {
  name: CapabilityName;
  enabled: boolean;
  description: string;
  operations: string[];
}

export function describeCapabilities(overrides: CapabilityOverrides): CapabilityState[] {
  return CAPABILITY_NAMES.map((name) => ({
    name,
    enabled: isOn(overrides, name),
    description: CAPABILITIES[name].description,
    operations: [...CAPABILITIES[name].operations],
  }));
}

/**
 * Switches the named capabilities on or off and leaves the others as they are. Only switched-off
 * capabilities are stored, so "on" is the absence of a key. One statement, so concurrent changes
 * to different capabilities both apply. Run it in a transaction so the change and its
 * announcement commit together.
 */
export async function setCapabilities(
  db: Queryable,
  organizationId: string,
  changes: Partial<Record<CapabilityName, boolean>>,
): Promise<CapabilityOverrides | undefined> {
  const switchOff: Record<string, false> = {};
  const switchOn: string[] = [];
  for (const [name, enabled] of Object.entries(changes)) {
    if (enabled) switchOn.push(name);
    else switchOff[name] = false;
  }
  const [row] = await db.query<{ capabilities: CapabilityOverrides }>(
    `UPDATE organizations SET capabilities = (capabilities - $2::text[]) || $3::jsonb
      WHERE organization_id = $1 RETURNING capabilities`,
    [organizationId, switchOn, JSON.stringify(switchOff)],
  );
  if (row) await announceInvalidation(db, { topic: "capabilities", organizationId });
  return row?.capabilities;
}
