// HTTP routes of the accounts domain: staff sign-in/out, staff accounts, service API keys, principal
// token broker.
import type { RouteModule } from "../http/app.js";
import { serviceOf, staffOf } from "../http/credentials.js";
import type { StaffCredential } from "../lib/credentials.js";
import { clearCookie, setCookie } from "../http/cookies.js";
import { notFound } from "../lib/failure.js";
import { pageInMemory, pageScope } from "../lib/paging.js";
import { createApiKey, revokeApiKey } from "./api-keys.js";
import {
  createOrganizationForOperator,
  operatorActor,
  organizationToWire,
  pageOrganizationsForOperator,
} from "./operator.js";
import { disableOrganization, enableOrganization } from "./organization-status.js";
import { findOrganizationBySlug } from "./organizations.js";
import { mintPrincipalToken } from "./principal-tokens.js";
import { ensurePrincipal, setPrincipalEmail } from "./principals.js";
import { signInStaff } from "./staff.js";
import { createStaffAccount, updateStaffAccount } from "./staff-accounts.js";
import { endStaffSession, SESSION_COOKIE, startStaffSession } from "./staff-sessions.js";
import { listApiKeys, listStaffUsers } from "./store.js";

const sessionBody = (s: Omit<StaffCredential, "kind">) => ({
  staffId: s.staffId,
  organizationId: s.organizationId,
  organizationSlug: s.organizationSlug,
  email: s.email,
  role: s.role,
  csrfToken: s.csrfToken,
  expiresAt: s.expiresAt,
});

export const accountRoutes: RouteModule = ({ config, db, clock }) => [
  {
    operationId: "operatorListOrganizations",
    handler: async (request) => {
      const page = await pageOrganizationsForOperator(db, request.query);
      return { organizations: page.items.map(organizationToWire), nextCursor: page.nextCursor };
    },
  },
  {
    operationId: "operatorCreateOrganization",
    idempotency: true,
    handler: async (request, _reply, tools) => {
      const now = clock.now();
      return tools.write(async (tx) => {
        const created = await createOrganizationForOperator(tx, request.body, now);
        return { ...created, organization: organizationToWire(created.organization) };
      });
    },
  },
  {
    operationId: "operatorDisableOrganization",
    handler: async (request, _reply, tools) => {
      const { reason, by } = request.body;
      const change = await tools.write((tx) =>
        disableOrganization(
          tx,
          { organizationId: request.params.organizationId, reason, by: operatorActor(by) },
          clock.now(),
        ),
      );
      if (!change) throw notFound("No organisation has this id");
      return { organization: organizationToWire(change.organization), changed: change.changed };
    },
  },
  {
    operationId: "operatorEnableOrganization",
    handler: async (request, _reply, tools) => {
      const { reason, by } = request.body;
      const change = await tools.write((tx) =>
        enableOrganization(
          tx,
          { organizationId: request.params.organizationId, reason, by: operatorActor(by) },
          clock.now(),
        ),
      );
      if (!change) throw notFound("No organisation has this id");
      return { organization: organizationToWire(change.organization), changed: change.changed };
    },
  },
  {
    operationId: "getOrgBySlug",
    handler: async (request) => {
      const { slug } = request.params;
      const org = await findOrganizationBySlug(db, slug);
      if (!org) throw notFound("No organisation has this slug");
      return { orgId: org.organizationId, name: org.name, slug: org.slug };
    },
  },
  {
    operationId: "createStaffSession",
    handler: async (request, reply) => {
      const now = clock.now();
      // request.ip is the peer, or the client a trusted proxy names (config.trustProxy).
      const staff = await signInStaff(db, { ...request.body, clientAddress: request.ip }, now);
      const ttlMs = config.sessionTtlHours * 3_600_000;
      const { cookieValue, session } = await startStaffSession(db, staff, { now, ttlMs });
      setCookie(reply, SESSION_COOKIE, cookieValue, {
        path: "/",
        httpOnly: true,
        sameSite: "lax",
        secure: config.cookieSecure,
        maxAge: Math.floor(ttlMs / 1000),
      });
      return sessionBody(session);
    },
  },
  {
    operationId: "getStaffSession",
    handler: async (request) => sessionBody(staffOf(request)),
  },
  {
    operationId: "deleteStaffSession",
    handler: async (request, reply) => {
      const staff = staffOf(request);
      await endStaffSession(db, {
        organizationId: staff.organizationId,
        sessionId: staff.sessionId,
        now: clock.now(),
      });
      clearCookie(reply, SESSION_COOKIE, {
        path: "/",
        httpOnly: true,
        sameSite: "lax",
        secure: config.cookieSecure,
      });
      return { signedOut: true };
    },
  },
  {
    operationId: "listApiKeys",
    handler: async (request) => {
      const { organizationId } = staffOf(request);
      // Keys are made by hand, so an organisation has few: the list is read whole and paged here.
      const page = pageInMemory(await listApiKeys(db, organizationId), request.query, {
        scope: pageScope("listApiKeys", organizationId),
        shape: ["number", "string"],
        keyOf: (key) => [key.createdAt, key.apiKeyId],
        descending: true,
      });
      return { apiKeys: page.items, nextCursor: page.nextCursor };
    },
  },
  {
    operationId: "createApiKey",
    roles: ["admin", "dpo"],
    handler: async (request) => {
      const staff = staffOf(request);
      return createApiKey(
        db,
        { organizationId: staff.organizationId, name: request.body.name, createdBy: staff.staffId },
        clock.now(),
      );
    },
  },
  {
    operationId: "revokeApiKey",
    roles: ["admin", "dpo"],
    handler: async (request) => {
      const staff = staffOf(request);
      const { apiKeyId } = request.params;
      const result = await db.transaction((tx) =>
        revokeApiKey(tx, { organizationId: staff.organizationId, apiKeyId }, clock.now()),
      );
      if (!result) throw notFound("No such API key in this organisation");
      return result;
    },
  },
  {
    operationId: "listStaffAccounts",
    handler: async (request) => {
      const { organizationId } = staffOf(request);
      // Accounts are made by hand, so an organisation has few: the list is read whole and paged here.
      const page = pageInMemory(await listStaffUsers(db, organizationId), request.query, {
        scope: pageScope("listStaffAccounts", organizationId),
        shape: ["number", "string"],
        keyOf: (account) => [account.createdAt, account.staffId],
      });
      return { accounts: page.items, nextCursor: page.nextCursor };
    },
  },
  {
    operationId: "createStaffAccount",
    roles: ["admin"],
    handler: async (request) => {
      const { organizationId } = staffOf(request);
      const { email, role, password } = request.body;
      return createStaffAccount(db, { organizationId, email, role, password }, clock.now());
    },
  },
  {
    operationId: "updateStaffAccount",
    roles: ["admin"],
    handler: async (request) => {
      const staff = staffOf(request);
      const { role, disabled } = request.body;
      return db.transaction((tx) =>
        updateStaffAccount(
          tx,
          {
            organizationId: staff.organizationId,
            actorStaffId: staff.staffId,
            staffId: request.params.staffId,
            role,
            disabled,
          },
          clock.now(),
        ),
      );
    },
  },
  {
    operationId: "brokerToken",
    handler: async (request) => {
      const service = serviceOf(request);
      const { externalId, email } = request.body;
      const now = clock.now();
      const { principalId } = await ensurePrincipal(
        db,
        { organizationId: service.organizationId, externalId },
        now,
      );
      if (email !== undefined)
        await setPrincipalEmail(db, { organizationId: service.organizationId, principalId, email });
      const token = await mintPrincipalToken(
        config,
        { organizationId: service.organizationId, principalId, externalId, apiKeyId: service.apiKeyId },
        now,
      );
      return { ...token, tokenType: "Bearer" };
    },
  },
];
