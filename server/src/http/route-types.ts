// Request and response types of each contract operation, derived from the types generated from
// contract/openapi/v1.yaml (src/generated/contract.ts). A route handler is typed by its
// operationId alone: its body, query, path parameters and headers are what Fastify has validated
// against the same description, so handlers read them without casts.
import type { Readable } from "node:stream";
import type { FastifyRequest } from "fastify";
import type { operations } from "../generated/contract.js";

export type OperationId = keyof operations;

type Json<T> = T extends { content: { "application/json": infer B } } ? B : never;
type Part<O extends OperationId, K extends string> = operations[O]["parameters"] extends infer P
  ? P extends Record<K, infer V>
    ? [V] extends [never]
      ? Record<string, never>
      : NonNullable<V>
    : Record<string, never>
  : never;

/** The validated JSON body of an operation (undefined when it takes none). */
export type RequestBody<O extends OperationId> = operations[O] extends { requestBody?: infer B }
  ? [B] extends [never]
    ? undefined
    : operations[O] extends { requestBody: B }
      ? Json<B>
      : Json<NonNullable<B>> | undefined
  : undefined;
export type RequestQuery<O extends OperationId> = Part<O, "query">;
export type RequestParams<O extends OperationId> = Part<O, "path">;
export type RequestHeaders<O extends OperationId> = Part<O, "header">;

/**
 * The body of any 2xx answer the operation declares: its JSON, or a stream of the bytes when the
 * contract declares another media type (a CSV export), which the frame sends as it is read.
 */
export type SuccessBody<O extends OperationId> = {
  [S in keyof operations[O]["responses"]]: S extends 200 | 201 | 202 | 204
    ? operations[O]["responses"][S] extends { content: { "application/json": unknown } }
      ? Json<operations[O]["responses"][S]>
      : operations[O]["responses"][S] extends { content: unknown }
        ? Readable
        : undefined
    : never;
}[keyof operations[O]["responses"]];

/** A Fastify request whose parts are typed by the operation's contract. */
export type ContractRequest<O extends OperationId> = FastifyRequest<{
  Body: RequestBody<O>;
  Querystring: RequestQuery<O>;
  Params: RequestParams<O>;
  Headers: RequestHeaders<O>;
}>;
