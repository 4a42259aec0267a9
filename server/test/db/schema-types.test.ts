// The query layer's table types (src/db/schema.ts) are generated from the migrations; this fails
// when a migration changed and the types were not regenerated (npm run generate:db-types -w server).
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import { generateSchemaTypes, renderSchemaTypes, SCHEMA_TYPES_PATH } from "../../scripts/db-types.js";

test("src/db/schema.ts matches the migrations", async () => {
  const expected = await generateSchemaTypes();
  assert.equal(
    fs.readFileSync(SCHEMA_TYPES_PATH, "utf8"),
    expected,
    "src/db/schema.ts is stale: run `npm run generate:db-types -w server`",
  );
});

test("columns are typed as the drivers return them", () => {
  const column = (udt_name: string, extra: Partial<Record<string, string | null>> = {}) => ({
    table_name: "t",
    table_type: "BASE TABLE",
    column_name: `c_${udt_name}`,
    udt_name,
    is_nullable: "NO",
    column_default: null,
    is_identity: "NO",
    ...extra,
  });
  const text = renderSchemaTypes([
    column("int8"),
    column("text", { is_nullable: "YES" }),
    column("jsonb", { column_default: "'{}'::jsonb" }),
    column("int4", { column_default: "nextval('s')" }),
  ]);
  assert.match(text, /c_int8: number;/);
  assert.match(text, /c_text: string \| null;/);
  assert.match(text, /c_jsonb: ColumnType<unknown, JsonText \| undefined, JsonText>;/);
  assert.match(text, /c_int4: Generated<number>;/);
  assert.match(text, /t: TTable;/);
  assert.throws(() => renderSchemaTypes([column("tsvector")]), /no TypeScript type for tsvector/);
});
