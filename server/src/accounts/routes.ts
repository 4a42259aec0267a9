// HTTP routes of the accounts domain: staff sign-in/out, service API keys, principal token broker.
import type { RouteModule } from "../http/app.js";
import { serviceOf, staffOf } from "../http/credentials.js";
import type { StaffCredential } from "../lib/credentials.js";
import { clearCookie, setCookie } from "../http/cookies.js";
import { notFound, unauthorized } from "../lib/failure.js";
import { enforceRateLimit } from "../http/rate-limit.js";
import { createApiKey, revokeApiKey } from "./api-keys.js";
import { findOrganizationBySlug } from "./organizations.js";
import { mintPrincipalToken } from "./principal-tokens.js";
import { ensurePrincipal, setPrincipalEmail } from "./principals.js";
import { checkStaffCredentials, normaliseEmail } from "./staff.js";
import { endStaffSession, SESSION_COOKIE, startStaffSession } from "./staff-sessions.js";
import { listApiKeys } from "./store.js";

// Sign-in budget: per account (slows password guessing) and per client address (slows spraying).
const SIGNIN_PER_ACCOUNT = { limit: 10, windowMs: 15 * 60_000 };
const SIGNIN_PER_ADDRESS = { limit: 100, windowMs: 15 * 60_000 };

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
      const body = request.body;
      const now = clock.now();
      const account = `${body.organizationSlug}:${normaliseEmail(body.email)}`;
      await enforceRateLimit(
        db,
        { key: `signin:account:${account}`, organizationId: "", ...SIGNIN_PER_ACCOUNT },
        now,
      );
      await enforceRateLimit(
        db,
        { key: `signin:address:${request.ip}`, organizationId: "", ...SIGNIN_PER_ADDRESS },
        now,
      );
      const staff = await checkStaffCredentials(db, body);
      if (!staff) throw unauthorized("Unknown organisation, email or password");
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
    handler: async (request) => ({ apiKeys: await listApiKeys(db, staffOf(request).organizationId) }),
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
