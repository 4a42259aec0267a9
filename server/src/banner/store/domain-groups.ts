// domain_groups, and domain_group_domains for the registered domains each group serves.
import type { Queryable } from "../../db/database.js";
import { execute, first, qb, rows, sql, type InferResult } from "../../db/query.js";

/** The organisation that owns a domain group; undefined for an unknown id. */
export async function domainGroupOwner(db: Queryable, domainGroupId: string): Promise<string | undefined> {
  const row = await first(
    db,
    qb.selectFrom("domain_groups").select("organization_id").where("domain_group_id", "=", domainGroupId),
  );
  return row?.organization_id;
}

/** A domain_groups row with the domains it serves (sorted by code point). */
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

const selectGroups = () =>
  qb.selectFrom("domain_groups as g").select((eb) => [
    "g.domain_group_id",
    "g.name",
    "g.notice_id",
    "g.banner_settings",
    "g.config_version",
    "g.created_at",
    "g.updated_at",
    eb.fn
      .coalesce(
        eb
          .selectFrom("domain_group_domains as d")
          .select(sql<string[]>`jsonb_agg(d.domain ORDER BY d.domain COLLATE "C")`.as("domains"))
          .whereRef("d.organization_id", "=", "g.organization_id")
          .whereRef("d.domain_group_id", "=", "g.domain_group_id"),
        sql<string[]>`'[]'::jsonb`,
      )
      .as("domains"),
  ]);

const toGroup = (row: InferResult<ReturnType<typeof selectGroups>>[number]): DomainGroup => ({
  domainGroupId: row.domain_group_id,
  name: row.name,
  domains: row.domains,
  noticeId: row.notice_id,
  bannerSettings: row.banner_settings as Record<string, unknown> | null,
  configVersion: row.config_version,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** One group of the organisation. */
export async function readDomainGroup(
  db: Queryable,
  organizationId: string,
  domainGroupId: string,
): Promise<DomainGroup | undefined> {
  const row = await first(
    db,
    selectGroups()
      .where("g.organization_id", "=", organizationId)
      .where("g.domain_group_id", "=", domainGroupId),
  );
  return row && toGroup(row);
}

/** The organisation's group with this name. */
export async function readDomainGroupByName(
  db: Queryable,
  organizationId: string,
  name: string,
): Promise<DomainGroup | undefined> {
  const row = await first(
    db,
    selectGroups().where("g.organization_id", "=", organizationId).where("g.name", "=", name),
  );
  return row && toGroup(row);
}

/** The organisation's groups by name (code point order). */
export async function readDomainGroups(db: Queryable, organizationId: string): Promise<DomainGroup[]> {
  const found = await rows(
    db,
    selectGroups()
      .where("g.organization_id", "=", organizationId)
      .orderBy(sql`g.name COLLATE "C"`),
  );
  return found.map(toGroup);
}

/** Locks a group until the transaction ends; false when the organisation has no such group. */
export async function lockDomainGroup(
  tx: Queryable,
  organizationId: string,
  domainGroupId: string,
): Promise<boolean> {
  const row = await first(
    tx,
    qb
      .selectFrom("domain_groups")
      .select("domain_group_id")
      .where("organization_id", "=", organizationId)
      .where("domain_group_id", "=", domainGroupId)
      .forUpdate(),
  );
  return row !== undefined;
}

/** The id of another group of the organisation with this name, if there is one. */
export async function otherDomainGroupNamed(
  db: Queryable,
  organizationId: string,
  name: string,
  exceptId: string,
): Promise<string | undefined> {
  const row = await first(
    db,
    qb
      .selectFrom("domain_groups")
      .select("domain_group_id")
      .where("organization_id", "=", organizationId)
      .where("name", "=", name)
      .where("domain_group_id", "<>", exceptId),
  );
  return row?.domain_group_id;
}

export interface DomainGroupDefinition {
  name: string;
  noticeId: string | null;
  bannerSettings: Record<string, unknown> | null;
}

/** Inserts a group at version 1 unless its name is taken; true when inserted. */
export async function insertDomainGroup(
  tx: Queryable,
  organizationId: string,
  domainGroupId: string,
  group: DomainGroupDefinition,
  now: number,
): Promise<boolean> {
  const inserted = await rows(
    tx,
    qb
      .insertInto("domain_groups")
      .values({
        organization_id: organizationId,
        domain_group_id: domainGroupId,
        name: group.name,
        notice_id: group.noticeId,
        banner_settings: group.bannerSettings === null ? null : JSON.stringify(group.bannerSettings),
        config_version: 1,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.columns(["organization_id", "name"]).doNothing())
      .returning("domain_group_id"),
  );
  return inserted.length > 0;
}

/** Replaces a group's definition, raising its version by `versionStep` (0 or 1). */
export async function updateDomainGroupRow(
  tx: Queryable,
  organizationId: string,
  domainGroupId: string,
  group: DomainGroupDefinition,
  versionStep: number,
  now: number,
): Promise<void> {
  await execute(
    tx,
    qb
      .updateTable("domain_groups")
      .set((eb) => ({
        name: group.name,
        notice_id: group.noticeId,
        banner_settings: group.bannerSettings === null ? null : JSON.stringify(group.bannerSettings),
        config_version: eb("config_version", "+", versionStep),
        updated_at: now,
      }))
      .where("organization_id", "=", organizationId)
      .where("domain_group_id", "=", domainGroupId),
  );
}

/** Replaces the set of domains a group serves. */
export async function replaceGroupDomains(
  tx: Queryable,
  organizationId: string,
  domainGroupId: string,
  domains: readonly string[],
): Promise<void> {
  await execute(
    tx,
    qb
      .deleteFrom("domain_group_domains")
      .where("organization_id", "=", organizationId)
      .where("domain_group_id", "=", domainGroupId),
  );
  if (domains.length === 0) return;
  await execute(
    tx,
    qb.insertInto("domain_group_domains").values(
      domains.map((domain) => ({
        organization_id: organizationId,
        domain_group_id: domainGroupId,
        domain,
      })),
    ),
  );
}

/** Deletes a group (its domain list goes with it); false when there was none. */
export async function deleteDomainGroupRow(
  db: Queryable,
  organizationId: string,
  domainGroupId: string,
): Promise<boolean> {
  const deleted = await rows(
    db,
    qb
      .deleteFrom("domain_groups")
      .where("organization_id", "=", organizationId)
      .where("domain_group_id", "=", domainGroupId)
      .returning("domain_group_id"),
  );
  return deleted.length > 0;
}

/** The group with this id if it serves `domain` (public: the group id finds the organisation). */
export async function findGroupServing(
  db: Queryable,
  domainGroupId: string,
  domain: string,
): Promise<
  | {
      organizationId: string;
      noticeId: string | null;
      bannerSettings: Record<string, unknown> | null;
      configVersion: number;
    }
  | undefined
> {
  const row = await first(
    db,
    qb
      .selectFrom("domain_groups as g")
      .innerJoin("domain_group_domains as d", (join) =>
        join
          .onRef("d.organization_id", "=", "g.organization_id")
          .onRef("d.domain_group_id", "=", "g.domain_group_id")
          .on("d.domain", "=", domain),
      )
      .select(["g.organization_id", "g.notice_id", "g.banner_settings", "g.config_version"])
      .where("g.domain_group_id", "=", domainGroupId),
  );
  return (
    row && {
      organizationId: row.organization_id,
      noticeId: row.notice_id,
      bannerSettings: row.banner_settings as Record<string, unknown> | null,
      configVersion: row.config_version,
    }
  );
}
