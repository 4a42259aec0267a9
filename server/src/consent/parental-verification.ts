// Verifiable parental consent (DPDP Act s.9(1), POST /api/v1/age/verify-parent). The app sends an
// opaque token obtained from a verification provider; a ParentalConsentVerifier checks it. What is
// recorded: who (the principal), when, which provider, the SHA-256 of the token and of the
// provider's parent reference. The raw token is never stored or logged.
//
// The only verifier shipped is SignedTestTokenVerifier. It is FOR TESTING AND INTEGRATION ONLY: it
// accepts tokens signed with a key derived from this deployment's GUARD_TOKEN_SECRET (mint them with
// `guard parental test-token`), which proves nothing about a real parent. A production deployment
// must replace it, in parentalConsentVerifier() below, with a verifier backed by DigiLocker or
// another authorised entity (Rule 10 of the DPDP Rules, 2025).
import { createHmac } from "node:crypto";
import { appendAuditEntry } from "../audit/chain.js";
import type { Config } from "../config.js";
import type { Queryable } from "../db/database.js";
import { newId } from "../lib/ids.js";
import { constantTimeEqual, sha256Hex } from "../lib/secrets.js";
import { insertParentalVerification } from "./store.js";

export interface ParentalVerificationSubject {
  organizationId: string;
  principalId: string;
  externalId: string;
}

export type ParentalVerificationResult =
  { ok: true; provider: string; parentReference: string } | { ok: false; reason: string };

export interface ParentalConsentVerifier {
  /** Stored with each verification, e.g. `digilocker`. */
  readonly provider: string;
  /** Checks the provider's token for this (child) principal. Never throws for a bad token. */
  verify(
    token: string,
    subject: ParentalVerificationSubject,
    now: number,
  ): Promise<ParentalVerificationResult>;
}

const TEST_TOKEN_PREFIX = "gtpt1";

interface TestTokenClaims {
  /** Organisation of the child principal. */
  org: string;
  /** The child principal's externalId: a token verifies one principal only. */
  sub: string;
  /** The provider's opaque reference for the verified parent. */
  parent: string;
  /** Epoch ms after which the token is refused. */
  exp: number;
}

/** The test verifier's HMAC key, derived so no extra secret has to be configured. */
export function signedTestTokenKey(tokenSecret: string): Buffer {
  return createHmac("sha256", tokenSecret).update("guard/signed-test-parental-token/v1").digest();
}

const sign = (key: Buffer, signed: string) => createHmac("sha256", key).update(signed).digest("base64url");

/**
 * A test token: `gtpt1.<base64url JSON claims>.<base64url HMAC-SHA256 of "gtpt1.<claims>">`.
 * FOR TESTING AND INTEGRATION ONLY (see the file comment).
 */
export function mintSignedTestToken(
  key: Buffer,
  claims: { organizationId: string; externalId: string; parentReference: string; expiresAt: number },
): string {
  const body: TestTokenClaims = {
    org: claims.organizationId,
    sub: claims.externalId,
    parent: claims.parentReference,
    exp: claims.expiresAt,
  };
  const signed = `${TEST_TOKEN_PREFIX}.${Buffer.from(JSON.stringify(body)).toString("base64url")}`;
  return `${signed}.${sign(key, signed)}`;
}

/**
 * Verifies HMAC-signed test tokens. FOR TESTING AND INTEGRATION ONLY: it must be replaced by a
 * DigiLocker-backed verifier in production, because whoever holds the deployment's secret can mint
 * these tokens and they carry no evidence of a real parent's identity.
 */
export class SignedTestTokenVerifier implements ParentalConsentVerifier {
  readonly provider = "signed-test-token";
  constructor(private readonly key: Buffer) {}

  async verify(
    token: string,
    subject: ParentalVerificationSubject,
    now: number,
  ): Promise<ParentalVerificationResult> {
    const parts = token.split(".");
    if (parts.length !== 3 || parts[0] !== TEST_TOKEN_PREFIX) return { ok: false, reason: "malformed token" };
    const signed = `${parts[0]}.${parts[1]}`;
    if (!constantTimeEqual(sign(this.key, signed), parts[2]!)) return { ok: false, reason: "bad signature" };
    let claims: Partial<TestTokenClaims>;
    try {
      claims = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8")) as Partial<TestTokenClaims>;
    } catch {
      return { ok: false, reason: "malformed token" };
    }
    if (typeof claims.exp !== "number" || claims.exp <= now) return { ok: false, reason: "token expired" };
    if (claims.org !== subject.organizationId || claims.sub !== subject.externalId) {
      return { ok: false, reason: "token was issued for another principal" };
    }
    if (typeof claims.parent !== "string" || claims.parent === "") {
      return { ok: false, reason: "token names no parent" };
    }
    return { ok: true, provider: this.provider, parentReference: claims.parent };
  }
}

/** The verifier this deployment uses. Swap in a DigiLocker-backed one for production. */
export function parentalConsentVerifier(config: Config): ParentalConsentVerifier {
  return new SignedTestTokenVerifier(signedTestTokenKey(config.tokenSecret));
}

/**
 * Records a successful verification (and its audit-chain entry) through the caller's transaction.
 * The same token presented again records nothing new.
 */
export async function recordParentalVerification(
  tx: Queryable,
  input: { subject: ParentalVerificationSubject; provider: string; token: string; parentReference: string },
  now: number,
): Promise<{ recorded: boolean }> {
  const verificationId = newId("pvr");
  const tokenHash = sha256Hex(input.token);
  const parentReferenceHash = sha256Hex(input.parentReference);
  const recorded = await insertParentalVerification(tx, {
    organizationId: input.subject.organizationId,
    verificationId,
    principalId: input.subject.principalId,
    provider: input.provider,
    tokenHash,
    parentReferenceHash,
    verifiedAt: now,
  });
  if (!recorded) return { recorded: false };
  await appendAuditEntry(
    tx,
    {
      organizationId: input.subject.organizationId,
      entryType: "parental_verification.recorded",
      subjectId: input.subject.principalId,
      payload: {
        verificationId,
        principalId: input.subject.principalId,
        provider: input.provider,
        tokenHash,
        parentReferenceHash,
        verifiedAt: now,
      },
    },
    now,
  );
  return { recorded: true };
}
