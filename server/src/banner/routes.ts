// Banner and widget routes. Public: the banner configuration of a scope and the widget's one config
// call. Staff (the session's organisation; any role reads, admin and dpo write): banner settings per
// scope, registered domains and apps, and domain groups.
import { findOrganizationById } from "../accounts/organizations.js";
import type { AppContext } from "../app.js";
import { staffOf } from "../http/credentials.js";
import type { RouteModule } from "../http/app.js";
import { notFound, validationError } from "../lib/failure.js";
import { pageInMemory, pageScope, type PageRequest, type SortKey } from "../lib/paging.js";
import { lookupBannerConfig, normaliseDomain, type BannerScope } from "./banner-config.js";
import {
  createDomainGroupIn,
  deleteDomainGroup,
  getDomainGroup,
  listDomainGroups,
  resolveWidgetConfig,
  updateDomainGroup,
  type DomainGroupInput,
} from "./domain-groups.js";
import { bannerSnippet } from "./script.js";
import { bannerSettingsProblem } from "./settings.js";
import {
  addApp,
  addDomain,
  listApps,
  listDomains,
  listScopeSettings,
  removeApp,
  removeDomain,
  removeScopeSettings,
  saveScopeSettings,
} from "./staff-config.js";

const WRITERS = ["admin", "dpo"] as const;

/**
 * A page of one of the staff configuration lists. Their length is set by hand (an organisation's
 * domains, apps, groups and their settings), not by traffic, so each is read whole and paged here,
 * in the order its key gives.
 */
const configPage = <T>(
  items: readonly T[],
  request: PageRequest,
  route: string,
  organizationId: string,
  key: { shape: readonly ("string" | "number")[]; of: (item: T) => SortKey },
) =>
  pageInMemory(items, request, { scope: pageScope(route, organizationId), shape: key.shape, keyOf: key.of });

/** A `{domain}` path parameter as a registered-domain key, or 400 naming it. */
function hostParam(domain: string): string {
  const host = normaliseDomain(domain);
  if (!host) throw validationError("domain", "domain is not a hostname (no scheme, port or path)");
  return host;
}

/** Banner settings the request validator accepted, checked for unknown keys and languages. */
function checkedSettings(settings: Record<string, unknown>): Record<string, unknown> {
  const problem = bannerSettingsProblem(settings);
  if (problem) throw validationError(problem.field, problem.message);
  return settings;
}

function groupInput(body: {
  name: string;
  domains?: string[];
  noticeId?: string;
  bannerSettings?: Record<string, unknown>;
}): DomainGroupInput {
  const name = body.name.trim();
  if (name === "") throw validationError("name", "name must not be blank");
  return {
    name,
    domains: body.domains ?? [],
    noticeId: body.noticeId ?? null,
    bannerSettings: body.bannerSettings === undefined ? null : checkedSettings(body.bannerSettings),
  };
}

const publicRoutes: RouteModule = ({ db }) => [
  {
    operationId: "getBannerConfig",
    handler: async (request) => {
      const { orgId } = request.params;
      const { domain, appId } = request.query;
      // Both given: the web scope wins (documented in the contract).
      const scope: BannerScope =
        domain !== undefined
          ? { kind: "domain", domain }
          : appId !== undefined
            ? { kind: "app", appId }
            : { kind: "default" };
      const found = await lookupBannerConfig(db, orgId, scope);
      if (found.kind === "no-organization") throw notFound("No such organisation");
      if (found.kind === "unregistered")
        throw notFound(
          scope.kind === "app"
            ? "This app is not registered to the organisation"
            : "This domain is not registered to the organisation",
        );
      return found.config;
    },
  },
  {
    operationId: "getWidgetConfig",
    handler: async (request) => {
      const { id, domain } = request.query;
      const config = await resolveWidgetConfig(db, id, domain);
      if (!config)
        throw notFound("No domain group with this id serves this domain, or it has no published notice");
      const { notice } = config;
      return {
        organizationId: config.organizationId,
        noticeId: notice.noticeId,
        noticeVersion: notice.version,
        notice: { content: notice.content, itemized: notice.itemized, languages: notice.languages },
        ...(config.bannerSettings
          ? { bannerSettings: config.bannerSettings, configVersion: config.configVersion }
          : {}),
      };
    },
  },
];

const staffRoutes: RouteModule<AppContext> = ({ db, clock, config, bannerScript }) => {
  const org = (request: Parameters<typeof staffOf>[0]) => staffOf(request).organizationId;
  return [
    {
      operationId: "getBannerSnippet",
      handler: async (request) => {
        if (!bannerScript) throw notFound("This build serves no banner script (run npm run build -w banner)");
        const organization = await findOrganizationById(db, org(request));
        if (!organization) throw notFound("No such organisation");
        const baseUrl = config.publicUrl ?? `${request.protocol}://${request.host}`;
        return bannerSnippet(bannerScript, baseUrl, organization.slug);
      },
    },
    {
      operationId: "listBannerSettings",
      handler: async (request) => {
        const page = configPage(
          await listScopeSettings(db, org(request)),
          request.query,
          "listBannerSettings",
          org(request),
          // The organisation default first, then by scope and its domain or app.
          {
            shape: ["number", "string", "string"],
            of: (s) => [s.scope === "default" ? 0 : 1, s.scope, s.domain ?? s.appId ?? ""],
          },
        );
        return { bannerSettings: page.items, nextCursor: page.nextCursor };
      },
    },
    {
      operationId: "saveDefaultBannerSettings",
      roles: WRITERS,
      handler: async (request) => {
        const saved = await saveScopeSettings(
          db,
          org(request),
          { kind: "default" },
          checkedSettings(request.body.bannerSettings),
          clock.now(),
        );
        return saved!;
      },
    },
    {
      operationId: "listRegisteredDomains",
      handler: async (request) => {
        const page = configPage(
          await listDomains(db, org(request)),
          request.query,
          "listRegisteredDomains",
          org(request),
          {
            shape: ["string"],
            of: (d) => [d.domain],
          },
        );
        return { domains: page.items, nextCursor: page.nextCursor };
      },
    },
    {
      operationId: "registerDomain",
      roles: WRITERS,
      handler: async (request) => addDomain(db, org(request), hostParam(request.params.domain), clock.now()),
    },
    {
      operationId: "removeRegisteredDomain",
      roles: WRITERS,
      handler: async (request) => ({
        removed: await removeDomain(db, org(request), hostParam(request.params.domain), clock.now()),
      }),
    },
    {
      operationId: "saveDomainBannerSettings",
      roles: WRITERS,
      handler: async (request) => {
        const scope = { kind: "domain", domain: hostParam(request.params.domain) } as const;
        const saved = await saveScopeSettings(
          db,
          org(request),
          scope,
          checkedSettings(request.body.bannerSettings),
          clock.now(),
        );
        if (!saved) throw notFound("This domain is not registered to the organisation");
        return saved;
      },
    },
    {
      operationId: "removeDomainBannerSettings",
      roles: WRITERS,
      handler: async (request) => ({
        removed: await removeScopeSettings(
          db,
          org(request),
          { kind: "domain", domain: hostParam(request.params.domain) },
          clock.now(),
        ),
      }),
    },
    {
      operationId: "listRegisteredApps",
      handler: async (request) => {
        const page = configPage(
          await listApps(db, org(request)),
          request.query,
          "listRegisteredApps",
          org(request),
          {
            shape: ["string"],
            of: (a) => [a.appId],
          },
        );
        return { apps: page.items, nextCursor: page.nextCursor };
      },
    },
    {
      operationId: "registerApp",
      roles: WRITERS,
      handler: async (request) => addApp(db, org(request), request.params.appId, clock.now()),
    },
    {
      operationId: "removeRegisteredApp",
      roles: WRITERS,
      handler: async (request) => ({
        removed: await removeApp(db, org(request), request.params.appId, clock.now()),
      }),
    },
    {
      operationId: "saveAppBannerSettings",
      roles: WRITERS,
      handler: async (request) => {
        const scope = { kind: "app", appId: request.params.appId } as const;
        const saved = await saveScopeSettings(
          db,
          org(request),
          scope,
          checkedSettings(request.body.bannerSettings),
          clock.now(),
        );
        if (!saved) throw notFound("This app is not registered to the organisation");
        return saved;
      },
    },
    {
      operationId: "removeAppBannerSettings",
      roles: WRITERS,
      handler: async (request) => ({
        removed: await removeScopeSettings(
          db,
          org(request),
          { kind: "app", appId: request.params.appId },
          clock.now(),
        ),
      }),
    },
    {
      operationId: "listDomainGroups",
      handler: async (request) => {
        const page = configPage(
          await listDomainGroups(db, org(request)),
          request.query,
          "listDomainGroups",
          org(request),
          {
            shape: ["string", "string"],
            of: (g) => [g.name, g.domainGroupId],
          },
        );
        return { domainGroups: page.items, nextCursor: page.nextCursor };
      },
    },
    {
      operationId: "createDomainGroup",
      roles: WRITERS,
      idempotency: true,
      handler: async (request, _reply, { write }) => {
        const input = groupInput(request.body);
        return write((tx) => createDomainGroupIn(tx, org(request), input, clock.now()));
      },
    },
    {
      operationId: "getDomainGroup",
      handler: async (request) => {
        const { domainGroupId } = request.params;
        const group = await getDomainGroup(db, org(request), domainGroupId);
        if (!group) throw notFound("No such domain group in this organisation");
        return group;
      },
    },
    {
      operationId: "updateDomainGroup",
      roles: WRITERS,
      handler: async (request) => {
        const { domainGroupId } = request.params;
        const input = groupInput(request.body);
        const group = await updateDomainGroup(db, org(request), domainGroupId, input, clock.now());
        if (!group) throw notFound("No such domain group in this organisation");
        return group;
      },
    },
    {
      operationId: "deleteDomainGroup",
      roles: WRITERS,
      handler: async (request) => {
        const { domainGroupId } = request.params;
        return { deleted: await deleteDomainGroup(db, org(request), domainGroupId) };
      },
    },
  ];
};

export const bannerRoutes: RouteModule<AppContext> = (ctx) => [...publicRoutes(ctx), ...staffRoutes(ctx)];
