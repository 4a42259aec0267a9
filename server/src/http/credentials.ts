// The credential of an authenticated request, for route handlers: each operation's `security`
// says which kinds it accepts, and the access check has resolved one before the handler runs.
import type { FastifyRequest } from "fastify";
import type {
  Credential,
  PrincipalCredential,
  ServiceCredential,
  StaffCredential,
} from "../lib/credentials.js";
import { unauthorized } from "../lib/failure.js";

function credentialOf<K extends Credential["kind"]>(
  request: FastifyRequest,
  kind: K,
): Extract<Credential, { kind: K }> {
  const credential = request.credential;
  if (credential?.kind !== kind) throw unauthorized();
  return credential as Extract<Credential, { kind: K }>;
}

export const staffOf = (request: FastifyRequest): StaffCredential => credentialOf(request, "staff");
export const serviceOf = (request: FastifyRequest): ServiceCredential => credentialOf(request, "service");
export const principalOf = (request: FastifyRequest): PrincipalCredential =>
  credentialOf(request, "principal");

/** The staff session or the organisation's service key of a staff route that accepts either. */
export function operatorOf(request: FastifyRequest): StaffCredential | ServiceCredential {
  const credential = request.credential;
  if (credential?.kind === "staff" || credential?.kind === "service") return credential;
  throw unauthorized();
}
