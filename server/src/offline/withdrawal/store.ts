// withdrawal_tokens: the tokens handed to principals who consented offline. Only each token's
// SHA-256 is stored. The only code that touches the table.
import type { Queryable } from "../../db/database.js";
import { execute, first, qb } from "../../db/query.js";

export async function insertWithdrawalToken(
  tx: Queryable,
  token: { tokenHash: string; organizationId: string; consentId: string; issuedAt: number },
): Promise<void> {
  await execute(
    tx,
    qb.insertInto("withdrawal_tokens").values({
      token_hash: token.tokenHash,
      organization_id: token.organizationId,
      consent_id: token.consentId,
      issued_at: token.issuedAt,
    }),
  );
}

/** The consent a token withdraws, by the token's hash; undefined for an unknown token. */
export async function findTokenConsent(
  db: Queryable,
  tokenHash: string,
): Promise<{ organizationId: string; consentId: string } | undefined> {
  const row = await first(
    db,
    qb
      .selectFrom("withdrawal_tokens")
      .select(["organization_id", "consent_id"])
      .where("token_hash", "=", tokenHash),
  );
  return row && { organizationId: row.organization_id, consentId: row.consent_id };
}
