// Human-readable API reference at /docs (Swagger UI over the served contract).
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import { stampResponseHeaders } from "./response-headers.js";

export async function registerApiReference(
  app: FastifyInstance,
  document: Record<string, unknown>,
): Promise<void> {
  await app.register(swagger, { mode: "static", specification: { document: document as never } });
  // Its own scope, so that the hook stamping the usual headers runs for these routes only.
  await app.register(async (scope) => {
    scope.addHook("onRequest", (request, reply, done) => {
      stampResponseHeaders(request, reply);
      done();
    });
    await scope.register(swaggerUi, {
      routePrefix: "/docs",
      uiConfig: { docExpansion: "list", deepLinking: true, tryItOutEnabled: false },
      staticCSP: true,
    });
  });
}
