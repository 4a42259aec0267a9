// The consent audit hash (contract/specs/audit-hash.md), byte-identical to contract 1.6.0, so an
// integrator can recompute the hash Guard stored from their own records. The code is the contract's
// own module, the one the server hashes with, so the two cannot drift; scripts/build.mjs copies it
// into the package, which therefore needs no contract package at run time. Every case of
// contract/vectors/audit-hash.json runs in test/vectors.test.ts.
export {
  canonicalizeAuditEvent,
  computeAuditHash,
  validateAuditFields,
} from "../../../contract/src/canonical/audit-hash.js";
export type {
  AuditFieldProblem,
  AuditHashInput,
  AuditSource,
} from "../../../contract/src/canonical/audit-hash.js";
