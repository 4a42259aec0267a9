// JSON Schema 2020-12 validation (Ajv) for requests, from the contract's schemas. Bodies are
// validated strictly (no type coercion: "5" is not 5); path, query and header values arrive as
// strings, so those are coerced to the declared type. Query and path values must also be text the
// database can hold (request-text.ts); the body was checked as it was parsed (json-body.ts).
import Ajv2020Module from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { FastifySchemaCompiler } from "fastify";
import { Failure } from "../lib/failure.js";
import type { JsonSchema } from "./contract.js";
import { parameterFailure } from "./request-text.js";

// ajv is CommonJS: the ESM default import is module.exports, whose `default` is the class.
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;
type Ajv = InstanceType<typeof Ajv2020>;
type ValidateFunction = ReturnType<Ajv["compile"]>;
type AjvError = NonNullable<ValidateFunction["errors"]>[number];

function newAjv(components: JsonSchema, coerceTypes: boolean): Ajv {
  const ajv = new Ajv2020({
    strict: false, // the contract carries annotations such as `x-guard-codes`
    allErrors: false,
    coerceTypes,
    useDefaults: false,
    removeAdditional: false,
    // Not re-checked against the JSON Schema meta-schema here: compiling the meta-schema was a
    // large share of every start (bench/README.md, "Start-up"), and the contract's tests check
    // every schema against it (contract/test/openapi-schemas.test.ts).
    validateSchema: false,
  });
  addFormats(ajv);
  ajv.addSchema(structuredClone(components));
  return ajv;
}

/** `/dataTypes/0` → `dataTypes[0]`; a missing property is named by itself. */
export function fieldOf(error: AjvError, part: string): string {
  const segments = error.instancePath
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  if (error.keyword === "required") segments.push(String(error.params.missingProperty));
  if (segments.length === 0) return part;
  return segments.reduce(
    (acc, seg) => (/^\d+$/.test(seg) ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg),
    "",
  );
}

export function describeAjvError(error: AjvError, field: string): string {
  switch (error.keyword) {
    case "required":
      return `${field} is required`;
    case "minLength":
      return Number(error.params.limit) === 1
        ? `${field} must not be empty`
        : `${field} must be at least ${error.params.limit} characters`;
    case "minItems":
      return `${field} must have at least ${error.params.limit} item${Number(error.params.limit) === 1 ? "" : "s"}`;
    case "pattern":
      return `${field} has an invalid format`;
    case "enum":
      return `${field} must be one of: ${(error.params.allowedValues as unknown[]).join(", ")}`;
    default:
      return `${field} ${error.message ?? "is invalid"}`;
  }
}

const PART_NAMES: Record<string, string> = {
  body: "body",
  querystring: "query",
  params: "path",
  headers: "header",
};

export function createValidatorCompiler(
  components: JsonSchema,
  eager = false,
): FastifySchemaCompiler<JsonSchema> {
  // Made by the first compilation that needs each (as the validators themselves, below): a start
  // then pays for neither (bench/README.md, "Start-up").
  let strictAjv: Ajv | undefined;
  let coercingAjv: Ajv | undefined;
  const ajvFor = (body: boolean): Ajv =>
    body ? (strictAjv ??= newAjv(components, false)) : (coercingAjv ??= newAjv(components, true));
  return ({ schema, httpPart }) => {
    // Compiled by the first request that needs it, not at start-up (as the serializers:
    // lazy-serializers.ts): a start then pays for no route's schemas. The contract tests compile
    // every schema, so a broken one still fails `npm test`, not a first request in production.
    const body = httpPart === "body";
    let compiled: ValidateFunction | undefined = eager ? ajvFor(body).compile(schema) : undefined;
    // Header values cannot carry either character: the HTTP parser refuses control characters in
    // them and reads their bytes as Latin-1, which has no surrogates.
    const checkText = httpPart === "querystring" || httpPart === "params";
    return (data: unknown) => {
      // `true`, not `{ value: data }`: Fastify then keeps the request part as it is, without an
      // object to allocate and a property to store per request.
      const validate = (compiled ??= ajvFor(body).compile(schema));
      if (validate(data)) {
        const failure = checkText ? parameterFailure(data) : undefined;
        return failure ? { error: failure } : true;
      }
      const error = validate.errors![0]!;
      const field = fieldOf(error, PART_NAMES[httpPart ?? "body"] ?? "body");
      return { error: new Failure("VALIDATION_ERROR", describeAjvError(error, field), { field }) };
    };
  };
}

/** Test-mode guard: a response body that breaks its declared schema fails the request loudly. */
export function createResponseChecker(components: JsonSchema) {
  const ajv = newAjv(components, false);
  const cache = new Map<string, ValidateFunction>();
  return (
    operationId: string,
    status: string,
    responses: Record<string, JsonSchema>,
    body: unknown,
  ): void => {
    const schema = responses[status];
    if (!schema) throw new Error(`${operationId} answered ${status}, which the contract does not declare`);
    const cacheKey = `${operationId} ${status}`;
    let validate = cache.get(cacheKey);
    if (!validate) {
      validate = ajv.compile(schema);
      cache.set(cacheKey, validate);
    }
    if (!validate(body)) {
      throw new Error(
        `${operationId} ${status} response breaks its schema: ${ajv.errorsText(validate.errors)}`,
      );
    }
  };
}
