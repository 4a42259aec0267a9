// What a banner-settings object may hold. Types, enums and sizes are the contract's
// `BannerSettingsInput` schema, which the request validator applies; this module adds the two
// rules JSON Schema cannot say clearly while request objects stay open: a key the schema does not
// know is refused (so a misspelt setting is never stored and silently ignored), and `texts` is
// keyed by notice language codes. The known keys are read from the contract, so the two cannot
// drift apart.
import { loadOpenApiDocument } from "@guard/contract";
import { isNoticeLanguage } from "../notices/languages.js";

type Schema = { $ref?: string; properties?: Record<string, Schema>; additionalProperties?: Schema | boolean };

export interface SettingsProblem {
  field: string;
  message: string;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function componentSchemas(): Record<string, Schema> {
  const components = loadOpenApiDocument().components as { schemas: Record<string, Schema> };
  return components.schemas;
}

function deref(schema: Schema): Schema {
  let node = schema;
  while (node.$ref) {
    const name = node.$ref.replace("#/components/schemas/", "");
    const target = componentSchemas()[name];
    if (!target) throw new Error(`Unresolvable ${node.$ref} in the contract`);
    node = target;
  }
  return node;
}

function check(value: unknown, schema: Schema, field: string): SettingsProblem | undefined {
  if (!isPlainObject(value)) return undefined;
  const node = deref(schema);
  if (node.properties) {
    for (const [key, child] of Object.entries(value)) {
      const childSchema = node.properties[key];
      if (!childSchema) {
        const known = Object.keys(node.properties).join(", ");
        return {
          field: `${field}.${key}`,
          message: `${field}.${key} is not a known setting (known: ${known})`,
        };
      }
      const problem = check(child, childSchema, `${field}.${key}`);
      if (problem) return problem;
    }
  } else if (isPlainObject(node.additionalProperties)) {
    // The one map among the settings: banner texts keyed by language.
    for (const [key, child] of Object.entries(value)) {
      if (!isNoticeLanguage(key))
        return {
          field: `${field}.${key}`,
          message: `${field}.${key}: not English or an Eighth Schedule language code`,
        };
      const problem = check(child, node.additionalProperties, `${field}.${key}`);
      if (problem) return problem;
    }
  }
  return undefined;
}

/** The first unknown key or language in banner settings the validator already accepted. */
export function bannerSettingsProblem(
  settings: unknown,
  field = "bannerSettings",
): SettingsProblem | undefined {
  return check(settings, { $ref: "#/components/schemas/BannerSettingsInput" }, field);
}
