// withdrawal_tokens: the tokens handed to principals who consented offline, one row per consent a
// token withdraws. Only each token's SHA-256 is stored. The only code that touches the table.
import type { Queryable } from "../../db/database.js";
import { execute, qb, rows } from "../../db/query.js";

export async function insertWithdrawalToken(
  tx: Queryable,
  token: { tokenHash: string; organizationId: string; consentIds: readonly string[]; issuedAt: number },
): Promise<void> {
  await execute(
    tx,
    qb.insertInto("withdrawal_tokens").values(
      token.consentIds.map((consentId) => ({
        token_hash: token.tokenHash,
        organization_id: token.organizationId,
        consent_id: consentId,
        issued_at: token.issuedAt,
      })),
    ),
  );
}

/**
 * Inserts several tokens (one row per consent each stands for) in one statement: a synced batch of
 * offline captures mints one token per session.
 */
export async function insertWithdrawalTokens(
  tx: Queryable,
  tokens: readonly {
    tokenHash: string;
    organizationId: string;
    consentIds: readonly string[];
    issuedAt: number;
  }[],
): Promise<void> {
  const values = tokens.flatMap((token) =>
    token.consentIds.map((consentId) => ({
      token_hash: token.tokenHash,
      organization_id: token.organizationId,
      consent_id: consentId,
      issued_at: token.issuedAt,
    })),
  );
  if (values.length === 0) return;
  await execute(tx, qb.insertInto("withdrawal_tokens").values(values));
}

/** The consents a token withdraws, by the token's hash; undefined for an unknown token. */
export async function findTokenConsents(
  db: Queryable,
  tokenHash: string,
): Promise<{ organizationId: string; consentIds: string[] } | undefined> {
  const found = await rows(
    db,
    qb
      .selectFrom("withdrawal_tokens")
      .select(["organization_id", "consent_id"])
      .where("token_hash", "=", tokenHash)
      .orderBy("consent_id"),
  );
  const [head] = found;
  return head && { organizationId: head.organization_id, consentIds: found.map((row) => row.consent_id) };
}
