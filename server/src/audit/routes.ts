// HTTP route of the audit domain: `guard audit verify --org` for the session's organisation.
import type { AppContext } from "../app.js";
import type { RouteModule } from "../http/app.js";
import { staffOf } from "../http/credentials.js";
import { verifyAuditChain } from "./verify.js";

export const auditRoutes: RouteModule<AppContext> = ({ db, config }) => [
  {
    // Any staff role: verifying reads only. A POST (with CSRF) because it is a heavy walk of the
    // whole chain, not a cacheable read; it reads in pages, so a long chain costs time, not memory.
    operationId: "staffVerifyAuditChain",
    handler: async (request) => {
      const staff = staffOf(request);
      // The organisation is the session's; the report names it only for `--all` runs. Where the
      // walk started after a purge is the CLI's detail (the contract's report predates purges).
      const {
        organizationId: _organizationId,
        fromSeq: _fromSeq,
        ...report
      } = await verifyAuditChain(db, staff.organizationId, config.auditKeys);
      return report;
    },
  },
];
