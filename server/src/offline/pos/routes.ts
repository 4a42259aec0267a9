// The point-of-sale API: POST /api/v1/offline/pos (createPosConsentRequest, a till's service key)
// and the staff queue of expired requests (listPosConsentRequests, closePosConsentRequest). All
// three are behind the `offline_async_consent` capability, applied centrally before a handler runs
// (404 while off). The customer's page, /consent/{token}, is page.ts.
import type { AppContext } from "../../app.js";
import { assertAuditSafe, resolveConsentNotice } from "../../consent/consents.js";
import type { RouteModule } from "../../http/app.js";
import { serviceOf, staffOf } from "../../http/credentials.js";
import { spendOfflineBudget } from "../routes.js";
import {
  closePosRequest,
  createPosRequest,
  listPosRequestsPage,
  posDeps,
  posRequestToWire,
} from "./requests.js";

const WRITERS = ["admin", "dpo"] as const;

export const posRoutes: RouteModule<AppContext> = ({ config, db, clock }) => {
  const deps = posDeps(config);
  return [
    {
      operationId: "createPosConsentRequest",
      idempotency: true,
      handler: async (request, _reply, { write }) => {
        const service = serviceOf(request);
        // Counted first, so a loop of bad requests spends the key's budget too.
        spendOfflineBudget(service, "pos", clock.now());
        const body = request.body;
        const organizationId = service.organizationId;
        assertAuditSafe({ organizationId, ...body });
        const notice = await resolveConsentNotice(db, organizationId, body.noticeId, body.purpose);
        // The page is on the origin browsers reach Guard at; without GUARD_PUBLIC_URL, the one the
        // till called (the same rule as the banner install snippet).
        const origin = config.publicUrl ?? `${request.protocol}://${request.host}`;
        return write(async (tx) => {
          const { request: created, token } = await createPosRequest(
            tx,
            deps,
            {
              organizationId,
              apiKeyId: service.apiKeyId,
              notice,
              dataTypes: body.dataTypes,
              phone: body.phone,
            },
            clock.now(),
          );
          return {
            requestId: created.requestId,
            token,
            expiresAt: created.expiresAt,
            url: `${origin}/consent/${token}`,
          };
        });
      },
    },
    {
      operationId: "listPosConsentRequests",
      handler: async (request) => {
        const { organizationId } = staffOf(request);
        const { status, limit, cursor } = request.query;
        // Without a status, the queue staff work through: requests that expired unanswered.
        const page = await listPosRequestsPage(db, organizationId, status ?? "expired", { limit, cursor });
        return { requests: page.items.map(posRequestToWire), nextCursor: page.nextCursor };
      },
    },
    {
      operationId: "closePosConsentRequest",
      roles: WRITERS,
      handler: async (request) => {
        const staff = staffOf(request);
        const now = clock.now();
        return db.transaction(async (tx) =>
          posRequestToWire(
            await closePosRequest(
              tx,
              {
                organizationId: staff.organizationId,
                requestId: request.params.requestId,
                closedBy: staff.staffId,
                note: request.body.note,
              },
              now,
            ),
          ),
        );
      },
    },
  ];
};
