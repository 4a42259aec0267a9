// Writes src/db/schema.ts from the migrations. Run after adding or changing a migration:
//   npm run generate:db-types -w server
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { generateSchemaTypes, SCHEMA_TYPES_PATH } from "./db-types.js";

const text = await generateSchemaTypes();
fs.writeFileSync(SCHEMA_TYPES_PATH, text);
console.log(`wrote ${fileURLToPath(SCHEMA_TYPES_PATH)}`);
