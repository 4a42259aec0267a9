// DPDP Rules 2025 r.8(3): processing logs are kept at least one year. The floor every purge of the
// log-retention job is held to (audit/purge.ts enforces it, evidence/ checks it on the chain).
const DAY_MS = 24 * 60 * 60 * 1000;

export const MINIMUM_LOG_RETENTION_DAYS = 365;
export const MINIMUM_LOG_RETENTION_MS = MINIMUM_LOG_RETENTION_DAYS * DAY_MS;
