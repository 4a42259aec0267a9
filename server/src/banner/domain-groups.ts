// Domain groups: what the embeddable widget is configured by. A group serves a set of the
// organisation's registered domains, may name its own notice (else the organisation's default
// notice applies) and may carry its own banner styling with its own configVersion.
// The widget's one config call resolves a group only for a domain the group serves (strict: exact
// hostname, no parent or sub-domain matching), so a group id copied onto another site gets 404.
import type { Database, Queryable } from "../db/database.js";
import { Failure, validationError } from "../lib/failure.js";
import { newId } from "../lib/ids.js";
import { findPublishedNoticeOrDefault, type NoticeVersion } from "../notices/notices.js";
import { noticeExists } from "../notices/store.js";
import { normaliseDomain } from "./banner-config.js";
import {
  deleteDomainGroupRow,
  findGroupServing,
  insertDomainGroup,
  readDomainGroups,
  lockDomainGroup,
  otherDomainGroupNamed,
  readDomainGroup,
  readDomainGroupByName,
  registeredDomainsAmong,
  replaceGroupDomains,
  updateDomainGroupRow,
  type DomainGroup,
} from "./store.js";

export interface DomainGroupInput {
  name: string;
  domains: string[];
  noticeId: string | null;
  bannerSettings: Record<string, unknown> | null;
}

/** Another group of the organisation already has this name. */
const nameTaken = (name: string, domainGroupId: string) =>
  new Failure("CONFLICT", `A domain group named "${name}" already exists (${domainGroupId})`);

/** JSON with object keys sorted, so settings compare equal however JSONB reordered them. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Normalises the domains and checks every reference against the organisation's records. */
async function checkedInput(
  tx: Queryable,
  organizationId: string,
  input: DomainGroupInput,
): Promise<DomainGroupInput> {
  const domains: string[] = [];
  for (const [i, raw] of input.domains.entries()) {
    const host = normaliseDomain(raw);
    if (!host) throw validationError(`domains[${i}]`, `domains[${i}] is not a hostname`);
    if (!domains.includes(host)) domains.push(host);
  }
  const known = new Set(await registeredDomainsAmong(tx, organizationId, domains));
  const missing = domains.find((d) => !known.has(d));
  if (missing !== undefined) {
    const i = input.domains.findIndex((raw) => normaliseDomain(raw) === missing);
    throw validationError(
      `domains[${i}]`,
      `domains[${i}] (${missing}) is not registered to this organisation; register it first`,
    );
  }
  if (input.noticeId !== null && !(await noticeExists(tx, organizationId, input.noticeId)))
    throw validationError("noticeId", "noticeId names no notice of this organisation");
  return { ...input, domains: domains.sort() };
}

const sameDefinition = (group: DomainGroup, input: DomainGroupInput) =>
  group.name === input.name &&
  stableJson([...group.domains].sort()) === stableJson([...input.domains].sort()) &&
  group.noticeId === input.noticeId &&
  stableJson(group.bannerSettings) === stableJson(input.bannerSettings);

/**
 * Creates a group. Creating again with the same name and definition is a replay answering the
 * existing group; the same name with another definition is a CONFLICT.
 */
export async function createDomainGroup(
  db: Database,
  organizationId: string,
  input: DomainGroupInput,
  now: number,
): Promise<DomainGroup> {
  return db.transaction((tx) => createDomainGroupIn(tx, organizationId, input, now));
}

/** createDomainGroup inside the caller's transaction. */
export async function createDomainGroupIn(
  tx: Queryable,
  organizationId: string,
  input: DomainGroupInput,
  now: number,
): Promise<DomainGroup> {
  const checked = await checkedInput(tx, organizationId, input);
  const domainGroupId = newId("dgr");
  if (!(await insertDomainGroup(tx, organizationId, domainGroupId, checked, now))) {
    const group = (await readDomainGroupByName(tx, organizationId, checked.name))!;
    if (!sameDefinition(group, checked)) throw nameTaken(checked.name, group.domainGroupId);
    return group;
  }
  await replaceGroupDomains(tx, organizationId, domainGroupId, checked.domains);
  return (await readDomainGroup(tx, organizationId, domainGroupId))!;
}

/** Replaces a group's definition; undefined when the organisation has no such group. */
export async function updateDomainGroup(
  db: Database,
  organizationId: string,
  domainGroupId: string,
  input: DomainGroupInput,
  now: number,
): Promise<DomainGroup | undefined> {
  return db.transaction(async (tx) => {
    if (!(await lockDomainGroup(tx, organizationId, domainGroupId))) return undefined;
    const checked = await checkedInput(tx, organizationId, input);
    const current = (await readDomainGroup(tx, organizationId, domainGroupId))!;
    if (sameDefinition(current, checked)) return current;
    const other = await otherDomainGroupNamed(tx, organizationId, checked.name, domainGroupId);
    if (other !== undefined) throw nameTaken(checked.name, other);
    const stylingChanged = stableJson(current.bannerSettings) !== stableJson(checked.bannerSettings);
    await updateDomainGroupRow(tx, organizationId, domainGroupId, checked, stylingChanged ? 1 : 0, now);
    await replaceGroupDomains(tx, organizationId, domainGroupId, checked.domains);
    return (await readDomainGroup(tx, organizationId, domainGroupId))!;
  });
}

export async function getDomainGroup(
  db: Queryable,
  organizationId: string,
  domainGroupId: string,
): Promise<DomainGroup | undefined> {
  return readDomainGroup(db, organizationId, domainGroupId);
}

export async function listDomainGroups(db: Queryable, organizationId: string): Promise<DomainGroup[]> {
  return readDomainGroups(db, organizationId);
}

/** Deletes a group (its domains stay registered); false when there was none. */
export async function deleteDomainGroup(
  db: Queryable,
  organizationId: string,
  domainGroupId: string,
): Promise<boolean> {
  return deleteDomainGroupRow(db, organizationId, domainGroupId);
}

export interface WidgetConfig {
  organizationId: string;
  notice: NoticeVersion;
  bannerSettings: Record<string, unknown> | null;
  configVersion: number;
}

/**
 * The widget's configuration for a group embedded on `domain`; undefined (404) when the group does
 * not exist, does not serve that exact hostname, or no published notice resolves.
 */
export async function resolveWidgetConfig(
  db: Queryable,
  domainGroupId: string,
  domain: string,
): Promise<WidgetConfig | undefined> {
  const host = normaliseDomain(domain);
  if (!host) return undefined;
  const group = await findGroupServing(db, domainGroupId, host);
  if (!group) return undefined;
  const notice = await findPublishedNoticeOrDefault(db, group.organizationId, group.noticeId);
  if (!notice) return undefined;
  return {
    organizationId: group.organizationId,
    notice,
    bannerSettings: group.bannerSettings,
    configVersion: group.configVersion,
  };
}
