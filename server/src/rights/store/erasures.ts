// principal_erasures: one row per completed erasure, with its report (ids and counts only), kept
// as the evidence of what was erased and when.
import type { Queryable } from "../../db/database.js";
import { execute, qb } from "../../db/query.js";

export async function insertErasure(
  tx: Queryable,
  input: {
    organizationId: string;
    principalId: string;
    requestId: string;
    erasedAt: number;
    report: unknown;
  },
): Promise<void> {
  await execute(
    tx,
    qb.insertInto("principal_erasures").values({
      organization_id: input.organizationId,
      principal_id: input.principalId,
      request_id: input.requestId,
      erased_at: input.erasedAt,
      report: JSON.stringify(input.report),
    }),
  );
}
