// Principal access tokens: short-lived HS256 JWTs minted by `broker-token` for one principal of one
// organisation. The signature and expiry are checked statelessly, so any instance accepts them;
// there is no refresh token. A token names the service key that brokered it (claim `key`), and the
// access check (access/credentials.ts) refuses it once that key is revoked, so revoking a leaked
// key also ends the sessions it handed out.
import { errors, jwtVerify, SignJWT } from "jose";
import type { Config } from "../config.js";

const ISSUER = "guard";
const AUDIENCE = "guard:principal";

const keyCache = new Map<string, Uint8Array>();
function signingKey(config: Config): Uint8Array {
  let key = keyCache.get(config.tokenSecret);
  if (!key) {
    key = new TextEncoder().encode(config.tokenSecret);
    keyCache.set(config.tokenSecret, key);
  }
  return key;
}

export interface PrincipalClaims {
  organizationId: string;
  principalId: string;
  externalId: string;
  /** The service key that brokered the token; absent in tokens minted before keys were named. */
  apiKeyId?: string | undefined;
}

export async function mintPrincipalToken(
  config: Config,
  claims: PrincipalClaims,
  now: number,
): Promise<{ accessToken: string; expiresAt: number }> {
  const issuedAt = Math.floor(now / 1000);
  const expiresAtSeconds = issuedAt + config.tokenTtlMinutes * 60;
  const accessToken = await new SignJWT({
    org: claims.organizationId,
    ext: claims.externalId,
    ...(claims.apiKeyId ? { key: claims.apiKeyId } : {}),
  })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(claims.principalId)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAtSeconds)
    .sign(signingKey(config));
  return { accessToken, expiresAt: expiresAtSeconds * 1000 };
}

/** The claims of a valid, unexpired token; undefined for anything else (never throws). */
export async function verifyPrincipalToken(
  config: Config,
  token: string,
  now: number,
): Promise<PrincipalClaims | undefined> {
  if (token.length > 4096) return undefined;
  try {
    const { payload } = await jwtVerify(token, signingKey(config), {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ["HS256"],
      currentDate: new Date(now),
      requiredClaims: ["sub", "exp", "org", "ext"],
    });
    if (typeof payload.org !== "string" || typeof payload.ext !== "string" || !payload.sub) return undefined;
    if (payload.key !== undefined && typeof payload.key !== "string") return undefined;
    return {
      organizationId: payload.org,
      principalId: payload.sub,
      externalId: payload.ext,
      ...(payload.key ? { apiKeyId: payload.key } : {}),
    };
  } catch (error) {
    if (error instanceof errors.JOSEError) return undefined;
    throw error;
  }
}
