// Who owns which table, and the scanner that finds SQL naming a table outside its owner. A domain's
// tables are read and written only by its store (`<domain>/store.ts` or `<domain>/store/*.ts`);
// the frame's own tables by the one module that keeps them. Used by boundaries.test.ts.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const SRC = fileURLToPath(new URL("../../src/", import.meta.url));

/** table -> the owner: a domain folder (its store), or one frame module. */
export const TABLE_OWNERS: Record<string, string> = {
  organizations: "accounts",
  api_keys: "accounts",
  staff_users: "accounts",
  staff_sessions: "accounts",
  principals: "accounts",
  sign_in_counters: "accounts",
  notices: "notices",
  notice_versions: "notices",
  notice_drafts: "notices",
  banner_configs: "banner",
  domain_groups: "banner",
  domain_group_domains: "banner",
  registered_domains: "banner",
  registered_apps: "banner",
  consents: "consent",
  consent_events: "consent",
  cm_signals: "consent",
  parental_verifications: "consent",
  gate_decision_runs: "gate",
  gate_decision_blocks: "gate",
  gate_consent_refs: "gate",
  gate_decisions: "gate",
  audit_entries: "audit",
  audit_chain_heads: "audit",
  audit_chain_checkpoints: "audit",
  log_retention_policies: "log-retention",
  dsr_requests: "rights",
  grievances: "rights",
  nominations: "rights",
  rights_settings: "rights",
  rights_transitions: "rights",
  principal_erasures: "rights",
  webhook_endpoints: "webhooks",
  webhook_events: "webhooks",
  webhook_deliveries: "webhooks",
  webhook_delivery_attempts: "webhooks",
  offline_devices: "offline/devices",
  withdrawal_tokens: "offline/withdrawal",
  ivr_consent_artifacts: "offline/ivr",
  pos_consent_requests: "offline/pos",
  offline_consent_links: "offline/links",
  offline_link_responses: "offline/links",
  processing_activities: "ropa",
  breaches: "breaches",
  breach_affected_principals: "breaches",
  principal_notifications: "notifications",
  retention_policies: "retention",
  retention_legal_holds: "retention",
  retention_events: "retention",
  retention_scheduled_erasures: "retention",
  retention_sweep_marks: "retention",
  retention_principal_checks: "retention",
  idempotency_keys: "http/idempotency.ts",
  schema_migrations: "db/migrate.ts",
};

/** Whether `file` (relative to src/, with forward slashes) may name `owner`'s tables. */
export function mayTouch(file: string, owner: string): boolean {
  if (owner.endsWith(".ts")) return file === owner;
  return file === `${owner}/store.ts` || file.startsWith(`${owner}/store/`);
}

const table = "([a-z_]+)";
// Raw SQL (FROM/JOIN/INTO/UPDATE/TABLE ... name) and the query builder's entry points.
const SQL_PATTERNS = [
  new RegExp(`\\b(?:FROM|JOIN|INTO|UPDATE|TABLE|ONLY)\\s+${table}\\b`, "g"),
  new RegExp(
    `\\b(?:selectFrom|insertInto|updateTable|deleteFrom|mergeInto|innerJoin|leftJoin|rightJoin|fullJoin|with)\\(\\s*["'\`]${table}\\b`,
    "g",
  ),
];

export interface TableUse {
  file: string;
  line: number;
  table: string;
  owner: string;
}

export function sourceFiles(dir = SRC): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "migrations" && entry.name !== "generated") out.push(...sourceFiles(full));
    } else if (entry.name.endsWith(".ts")) out.push(full);
  }
  return out;
}

const relative = (full: string) => path.relative(SRC, full).split(path.sep).join("/");

/** Every place where SQL names a table its file does not own. */
export function tableTrespasses(): TableUse[] {
  const found: TableUse[] = [];
  for (const full of sourceFiles()) {
    const file = relative(full);
    if (file === "db/schema.ts") continue;
    const lines = fs.readFileSync(full, "utf8").split("\n");
    lines.forEach((text, index) => {
      if (/^\s*(\/\/|\*)/.test(text)) return; // comments may name tables
      for (const pattern of SQL_PATTERNS) {
        for (const match of text.matchAll(pattern)) {
          const name = match[1]!;
          const owner = TABLE_OWNERS[name];
          if (owner && !mayTouch(file, owner)) found.push({ file, line: index + 1, table: name, owner });
        }
      }
    });
  }
  return found;
}

/** Imports of a file, as written. */
export function importsOf(full: string): string[] {
  const text = fs.readFileSync(full, "utf8");
  return [...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+["']([^"']+)["']/gms)].map((m) => m[1]!);
}

export { relative as relativeToSrc };
