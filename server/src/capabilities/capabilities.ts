// Per-organisation capabilities (CONTRACT.md): every capability is on by default and an admin may
// switch it off. A switched-off capability's routes answer 404 NOT_FOUND as if they did not exist
// (contract 1.6.0's "returns 404 while its flag is off"); the check is central (access/), driven
// by the operation table below, so a route module is covered by being listed here. A few
// capabilities gate behaviour rather than routes (decision recording, bypass alerts, statutory
// denial, link redemption); their domain code asks `CapabilityCache.enabled` and the contract says
// what the route does while they are off.
//
// State lives in the organisation's row (accounts/store.ts) as {"name": false} for each capability
// switched off; absent means on, so a capability added later starts on for every organisation.
// Requests read it through CapabilityCache; a change is announced in its transaction so every
// instance's cache drops it on commit (db/invalidation.ts).
import {
  readCapabilitySwitches,
  readOrganizationAccess,
  updateCapabilitySwitches,
  type CapabilitySwitches,
} from "../accounts/store.js";
import type { Queryable } from "../db/database.js";
import { announceInvalidation, type InvalidationFeed } from "../db/invalidation.js";
import { ReadThroughCache } from "../db/read-through-cache.js";

export interface CapabilityDefinition {
  description: string;
  /** operationIds answering 404 while the capability is off (some may not be implemented yet). */
  operations: readonly string[];
  /**
   * For a capability that gates behaviour rather than routes: the operation whose presence means
   * the behaviour is built (link redemption exists once links can be created).
   */
  builtWith?: string;
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
    description:
      "The retention-due register (GET /api/v1/retention/due) and the fiduciary's confirmation " +
      "that a due erasure was executed.",
    operations: ["listDueRetentions", "confirmRetentionErasureExecuted"],
    builtWith: "listDueRetentions",
  },
  breach_register_api: {
    description: "The breach register (GET /api/v1/breaches).",
    operations: ["listBreaches"],
    builtWith: "listBreaches",
  },
  cross_border_api: {
    description: "The cross-border transfer register (GET /api/v1/cross-border/transfers).",
    operations: ["listCrossBorderTransfers"],
    builtWith: "listCrossBorderTransfers",
  },
  offline_consent_links: {
    description:
      "Creating offline consent links and QR codes (POST /api/v1/offline-consent/links), and the " +
      "staff list and disabling of links.",
    operations: ["createOfflineConsentLink", "listOfflineConsentLinks", "disableOfflineConsentLink"],
  },
  offline_consent_bridge: {
    description:
      "Redeeming offline consent links at /offline-consent/{token}; links are not redeemable while off.",
    operations: [],
    builtWith: "createOfflineConsentLink",
  },
  offline_agent_capture: {
    description: "Signed captures from enrolled agent devices (POST /api/v1/offline/captures).",
    operations: [
      "syncOfflineCaptures",
      "listDevices",
      "enrollDevice",
      "revokeDevice",
      "listOfflineCaptures",
      "releaseOfflineCapture",
      "rejectOfflineCapture",
    ],
  },
  offline_async_consent: {
    description:
      "Point-of-sale and IVR consent (POST /api/v1/offline/pos, POST /api/v1/offline/ivr), the " +
      "point-of-sale page /consent/{token}, its staff queue and the staff list of IVR artefacts.",
    operations: [
      "createPosConsentRequest",
      "recordIvrConsentArtifact",
      "listPosConsentRequests",
      "closePosConsentRequest",
      "listIvrConsentArtifacts",
    ],
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
export type CapabilityOverrides = CapabilitySwitches;

export const isOn = (overrides: CapabilityOverrides, name: CapabilityName): boolean =>
  overrides[name] !== false;

/** What the request path needs of an organisation: its switches and whether it is disabled. */
export interface OrganizationGate {
  overrides: CapabilityOverrides;
  /** Disabled by the deployment's operator (accounts/organization-status.ts): nothing acts for it. */
  disabled: boolean;
}

/**
 * The organisations' switches for the request path: one read per organisation per instance, then
 * served from memory until a switch in that organisation is announced (or a minute passes). The
 * same entry says whether the operator disabled the organisation (disabling announces on this
 * topic too), so the access check learns both from one lookup.
 */
export class CapabilityCache {
  private readonly cache: ReadThroughCache<{ organizationId: string } & OrganizationGate>;
  constructor(feed: InvalidationFeed) {
    this.cache = new ReadThroughCache(feed, { topic: "capabilities", max: 10_000, ttlMs: 60_000 });
  }

  /** The organisation's cached switches and state, without reading them (see ReadThroughCache.peek). */
  peekGate(organizationId: string): OrganizationGate | undefined {
    return this.cache.peek(organizationId);
  }

  /** The organisation's switches and state, read through the cache; undefined for no such organisation. */
  async readGate(db: Queryable, organizationId: string): Promise<OrganizationGate | undefined> {
    return this.cache.get(organizationId, async () => {
      const access = await readOrganizationAccess(db, organizationId);
      return access && { organizationId, overrides: access.switches, disabled: access.disabled };
    });
  }

  /** The organisation's cached switches, without reading them (see ReadThroughCache.peek). */
  peek(organizationId: string): CapabilityOverrides | undefined {
    return this.peekGate(organizationId)?.overrides;
  }

  /** The organisation's switches, read through the cache; undefined for no such organisation. */
  async read(db: Queryable, organizationId: string): Promise<CapabilityOverrides | undefined> {
    return (await this.readGate(db, organizationId))?.overrides;
  }

  /**
   * Whether capability `name` is on for the organisation (false when there is no such
   * organisation, or while it is disabled: a disabled organisation's behaviour is off with its
   * routes). Answered without a promise when the switches are cached, as they are for any
   * organisation whose request the access check has just let through, so a hot route pays nothing
   * for asking; callers test for a boolean before awaiting.
   */
  enabled(db: Queryable, organizationId: string, name: CapabilityName): boolean | Promise<boolean> {
    const cached = this.peekGate(organizationId);
    if (cached !== undefined) return !cached.disabled && isOn(cached.overrides, name);
    return this.readGate(db, organizationId).then(
      (gate) => gate !== undefined && !gate.disabled && isOn(gate.overrides, name),
    );
  }
}

export interface CapabilityState {
  name: CapabilityName;
  enabled: boolean;
  description: string;
  operations: string[];
}

/**
 * The capabilities this deployment has built: every route of the capability is registered (or, for
 * one that gates behaviour, its `builtWith` operation is). A capability whose routes are still
 * only in the contract is neither listed nor switchable, so the list never advertises a route that
 * would answer 404 with the capability on.
 */
export function builtCapabilities(implemented: ReadonlySet<string>): CapabilityName[] {
  return CAPABILITY_NAMES.filter((name) => {
    const definition: CapabilityDefinition = CAPABILITIES[name];
    if (definition.builtWith !== undefined) return implemented.has(definition.builtWith);
    return definition.operations.every((operationId) => implemented.has(operationId));
  });
}

function describeCapabilities(
  overrides: CapabilityOverrides,
  built: readonly CapabilityName[] = CAPABILITY_NAMES,
): CapabilityState[] {
  return built.map((name) => ({
    name,
    enabled: isOn(overrides, name),
    description: CAPABILITIES[name].description,
    operations: [...CAPABILITIES[name].operations],
  }));
}

/** The organisation's capabilities and their state; undefined when there is no such organisation. */
export async function listCapabilities(
  db: Queryable,
  organizationId: string,
  built: readonly CapabilityName[] = CAPABILITY_NAMES,
): Promise<CapabilityState[] | undefined> {
  const overrides = await readCapabilitySwitches(db, organizationId);
  return overrides && describeCapabilities(overrides, built);
}

/**
 * Switches the named capabilities on or off and leaves the others as they are, and answers the
 * capabilities now in force (undefined when there is no such organisation). Only switched-off
 * capabilities are stored, so "on" is the absence of a key; concurrent changes to different
 * capabilities both apply. Run it in a transaction so the change and its announcement commit
 * together.
 */
export async function setCapabilities(
  db: Queryable,
  organizationId: string,
  changes: Partial<Record<CapabilityName, boolean>>,
  built: readonly CapabilityName[] = CAPABILITY_NAMES,
): Promise<CapabilityState[] | undefined> {
  const switchOff: Record<string, false> = {};
  const switchOn: string[] = [];
  for (const [name, enabled] of Object.entries(changes)) {
    if (enabled) switchOn.push(name);
    else switchOff[name] = false;
  }
  const overrides = await updateCapabilitySwitches(db, organizationId, switchOn, switchOff);
  if (!overrides) return undefined;
  await announceInvalidation(db, { topic: "capabilities", organizationId });
  return describeCapabilities(overrides, built);
}
