// The headers every response carries: the request id (also in every error body) and nosniff.
// They are set where every response passes (a contract route's first hook, the one error path,
// the API reference's own hook) rather than in an app-wide `onRequest` hook: a hook of its own is
// a pass through Fastify's hook runner on every request.
import type { FastifyReply, FastifyRequest } from "fastify";

export function stampResponseHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header("x-request-id", request.id);
  reply.header("x-content-type-options", "nosniff");
}
