// Canonical forms and their signatures. Specs: contract/specs/*.md; golden vectors: contract/vectors/*.json.
export * from "./audit-hash.js";
export * from "./capture-artifact.js";
export * from "./webhook-signature.js";
