// QR consent links over HTTP: minting (the fiduciary's server, service key) and the staff list and
// disable (a staff session or the service key). All three are behind the `offline_consent_links`
// capability (capabilities/capabilities.ts), checked centrally before a handler runs; the principal's
// page is page.ts. Another organisation's link is a 404.
import type { AppContext } from "../../app.js";
import type { RouteModule } from "../../http/app.js";
import { operatorOf, serviceOf } from "../../http/credentials.js";
import { staffOrServiceActor } from "../../lib/credentials.js";
import { spendOfflineBudget } from "../routes.js";
import { checkNewLink, createLink, disableLink, pageLinks } from "./links.js";
import { LINK_PAGE_PATH } from "./page.js";

const WRITERS = ["admin", "dpo"] as const;

export const linkRoutes: RouteModule<AppContext> = ({ db, clock, config }) => [
  {
    operationId: "createOfflineConsentLink",
    idempotency: true,
    handler: async (request, _reply, { write }) => {
      const service = serviceOf(request);
      // The key's budget first: a runaway loop is stopped before any lookup.
      spendOfflineBudget(service, "links", clock.now());
      const input = {
        organizationId: service.organizationId,
        noticeId: request.body.noticeId,
        purpose: request.body.purpose,
        dataTypes: request.body.dataTypes,
        label: request.body.label,
        actor: staffOrServiceActor(service),
      };
      await checkNewLink(db, input);
      // GUARD_PUBLIC_URL when set (behind a proxy the request's own origin may be internal).
      const origin = config.publicUrl ?? `${request.protocol}://${request.host}`;
      return write(async (tx) => {
        const { link, token } = await createLink(tx, input, clock.now());
        return { linkId: link.linkId, token, url: `${origin}${LINK_PAGE_PATH}/${token}` };
      });
    },
  },
  {
    operationId: "listOfflineConsentLinks",
    handler: async (request) => {
      const { organizationId } = operatorOf(request);
      const page = await pageLinks(db, organizationId, request.query);
      return { links: page.items, nextCursor: page.nextCursor };
    },
  },
  {
    operationId: "disableOfflineConsentLink",
    roles: WRITERS,
    handler: async (request) => {
      const operator = operatorOf(request);
      const now = clock.now();
      return db.transaction((tx) =>
        disableLink(
          tx,
          {
            organizationId: operator.organizationId,
            linkId: request.params.linkId,
            actor: staffOrServiceActor(operator),
          },
          now,
        ),
      );
    },
  },
];
