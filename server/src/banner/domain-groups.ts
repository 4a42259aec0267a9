// Domain groups: what the embeddable widget is configured by. A group serves a set of the
// organisation's registered domains, may name its own notice (else the organisation's default
// notice applies) and may carry its own banner styling with its own configVersion.
// The widget's one config call resolves a group only for a domain the group serves (strict: exact
// hostname, no parent or sub-domain matching), so a group id copied onto another site gets 404.
import type { Database, Queryable } from "../db/database.js";
import { newId } from "../lib/ids.js";
import { findPublishedNoticeOrDefault, type NoticeVersion } from "../notices/notices.js";
import { normaliseDomain } from "./banner-config.js";

export interface DomainGroupInput {
  name: string;
  domains: string[];
  noticeId: string | null;
  bannerSettings: Record<string, unknown> | null;
}

export interface DomainGroup {
  domainGroupId: string;
  name: string;
  domains: string[];
  noticeId: string | null;
  bannerSettings: Record<string, unknown> | null;
  configVersion: number;
  createdAt: number;
  updatedAt: number;
}

/** Input naming something the organisation does not have (VALIDATION_ERROR on `field`). */
export class DomainGroupInputError extends Error {
  override name = "DomainGroupInputError";
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** Another group of the organisation already has this name (CONFLICT). */
export class DomainGroupNameTakenError extends Error {
  override name = "DomainGroupNameTakenError";
  constructor(
    readonly groupName: string,
    readonly domainGroupId: string,
  ) {
    super(`A domain group named "${groupName}" already exists (${domainGroupId})`);
  }
}

type GroupRow = {
  domain_group_id: string;
  name: string;
  notice_id: string | null;
  banner_settings: Record<string, unknown> | null;
  config_version: number;
  created_at: number;
  updated_at: number;
  domains: string[];
};

const GROUP_SELECT = `SELECT g.domain_group_id, g.name, g.notice_id, g.banner_settings, g.config_version,
       g.created_at, g.updated_at,
       COALESCE((SELECT jsonb_agg(d.domain ORDER BY d.domain COLLATE "C") FROM domain_group_domains d
                  WHERE d.organization_id = g.organization_id AND d.domain_group_id = g.domain_group_id),
                '[]'::jsonb) AS domains
  FROM domain_groups g`;

const toGroup = (row: GroupRow): DomainGroup => ({
  domainGroupId: row.domain_group_id,
  name: row.name,
  domains: row.domains,
  noticeId: row.notice_id,
  bannerSettings: row.banner_settings,
  configVersion: row.config_version,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

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
    if (!host) throw new DomainGroupInputError(`domains[${i}]`, `domains[${i}] is not a hostname`);
    if (!domains.includes(host)) domains.push(host);
  }
  if (domains.length > 0) {
    const registered = await tx.query<{ domain: string }>(
      "SELECT domain FROM registered_domains WHERE organization_id = $1 AND domain = ANY($2::text[])",
      [organizationId, domains],
    );
    const known = new Set(registered.map((r) => r.domain));
    const missing = domains.find((d) => !known.has(d));
    if (missing !== undefined) {
      const i = input.domains.findIndex((raw) => normaliseDomain(raw) === missing);
      throw new DomainGroupInputError(
        `domains[${i}]`,
        `domains[${i}] (${missing}) is not registered to this organisation; register it first`,
      );
    }
  }
  if (input.noticeId !== null) {
    const notice = await tx.query("SELECT 1 FROM notices WHERE organization_id = $1 AND notice_id = $2", [
      organizationId,
      input.noticeId,
    ]);
    if (notice.length === 0)
      throw new DomainGroupInputError("noticeId", "noticeId names no notice of this organisation");
  }
  return { ...input, domains: domains.sort() };
}

const sameDefinition = (group: DomainGroup, input: DomainGroupInput) =>
  group.name === input.name &&
  stableJson([...group.domains].sort()) === stableJson([...input.domains].sort()) &&
  group.noticeId === input.noticeId &&
  stableJson(group.bannerSettings) === stableJson(input.bannerSettings);

async function readGroup(db: Queryable, organizationId: string, domainGroupId: string) {
  const rows = await db.query<GroupRow>(
    `${GROUP_SELECT} WHERE g.organization_id = $1 AND g.domain_group_id = $2`,
    [organizationId, domainGroupId],
  );
  return rows[0] && toGroup(rows[0]);
}

async function writeDomains(tx: Queryable, organizationId: string, domainGroupId: string, domains: string[]) {
  await tx.query("DELETE FROM domain_group_domains WHERE organization_id = $1 AND domain_group_id = $2", [
    organizationId,
    domainGroupId,
  ]);
  if (domains.length === 0) return;
  await tx.query(
    `INSERT INTO domain_group_domains (organization_id, domain_group_id, domain)
     SELECT $1, $2, unnest($3::text[])`,
    [organizationId, domainGroupId, domains],
  );
}

/**
 * Creates a group. Creating again with the same name and definition is a replay answering the
 * existing group; the same name with another definition is DomainGroupNameTakenError.
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
  const [inserted] = await tx.query<{ domain_group_id: string }>(
    `INSERT INTO domain_groups
       (organization_id, domain_group_id, name, notice_id, banner_settings, config_version, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5::jsonb, 1, $6, $6)
     ON CONFLICT (organization_id, name) DO NOTHING RETURNING domain_group_id`,
    [
      organizationId,
      newId("dgr"),
      checked.name,
      checked.noticeId,
      checked.bannerSettings === null ? null : JSON.stringify(checked.bannerSettings),
      now,
    ],
  );
  if (!inserted) {
    const [existing] = await tx.query<GroupRow>(
      `${GROUP_SELECT} WHERE g.organization_id = $1 AND g.name = $2`,
      [organizationId, checked.name],
    );
    const group = toGroup(existing!);
    if (!sameDefinition(group, checked))
      throw new DomainGroupNameTakenError(checked.name, group.domainGroupId);
    return group;
  }
  await writeDomains(tx, organizationId, inserted.domain_group_id, checked.domains);
  return (await readGroup(tx, organizationId, inserted.domain_group_id))!;
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
    const locked = await tx.query(
      "SELECT 1 FROM domain_groups WHERE organization_id = $1 AND domain_group_id = $2 FOR UPDATE",
      [organizationId, domainGroupId],
    );
    if (locked.length === 0) return undefined;
    const checked = await checkedInput(tx, organizationId, input);
    const current = (await readGroup(tx, organizationId, domainGroupId))!;
    if (sameDefinition(current, checked)) return current;
    const [other] = await tx.query<{ domain_group_id: string }>(
      "SELECT domain_group_id FROM domain_groups WHERE organization_id = $1 AND name = $2 AND domain_group_id <> $3",
      [organizationId, checked.name, domainGroupId],
    );
    if (other) throw new DomainGroupNameTakenError(checked.name, other.domain_group_id);
    const stylingChanged = stableJson(current.bannerSettings) !== stableJson(checked.bannerSettings);
    await tx.query(
      `UPDATE domain_groups SET name = $3, notice_id = $4, banner_settings = $5::jsonb,
              config_version = config_version + $6, updated_at = $7
        WHERE organization_id = $1 AND domain_group_id = $2`,
      [
        organizationId,
        domainGroupId,
        checked.name,
        checked.noticeId,
        checked.bannerSettings === null ? null : JSON.stringify(checked.bannerSettings),
        stylingChanged ? 1 : 0,
        now,
      ],
    );
    await writeDomains(tx, organizationId, domainGroupId, checked.domains);
    return (await readGroup(tx, organizationId, domainGroupId))!;
  });
}

export async function getDomainGroup(
  db: Queryable,
  organizationId: string,
  domainGroupId: string,
): Promise<DomainGroup | undefined> {
  return readGroup(db, organizationId, domainGroupId);
}

export async function listDomainGroups(db: Queryable, organizationId: string): Promise<DomainGroup[]> {
  const rows = await db.query<GroupRow>(
    `${GROUP_SELECT} WHERE g.organization_id = $1 ORDER BY g.name COLLATE "C"`,
    [organizationId],
  );
  return rows.map(toGroup);
}

/** Deletes a group (its domains stay registered); false when there was none. */
export async function deleteDomainGroup(
  db: Queryable,
  organizationId: string,
  domainGroupId: string,
): Promise<boolean> {
  const deleted = await db.query(
    "DELETE FROM domain_groups WHERE organization_id = $1 AND domain_group_id = $2 RETURNING domain_group_id",
    [organizationId, domainGroupId],
  );
  return deleted.length > 0;
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
  const [group] = await db.query<{
    organization_id: string;
    notice_id: string | null;
    banner_settings: Record<string, unknown> | null;
    config_version: number;
  }>(
    `SELECT g.organization_id, g.notice_id, g.banner_settings, g.config_version
       FROM domain_groups g
       JOIN domain_group_domains d
         ON d.organization_id = g.organization_id AND d.domain_group_id = g.domain_group_id AND d.domain = $2
      WHERE g.domain_group_id = $1`,
    [domainGroupId, host],
  );
  if (!group) return undefined;
  const notice = await findPublishedNoticeOrDefault(db, group.organization_id, group.notice_id);
  if (!notice) return undefined;
  return {
    organizationId: group.organization_id,
    notice,
    bannerSettings: group.banner_settings,
    configVersion: group.config_version,
  };
}
