// Human-readable API reference at /docs (Swagger UI over the served contract).
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";

export async function registerApiReference(
  app: FastifyInstance,
  document: Record<string, unknown>,
): Promise<void> {
  await app.register(swagger, { mode: "static", specification: { document: document as never } });
  await app.register(swaggerUi, {
    routePrefix: "/docs",
    uiConfig: { docExpansion: "list", deepLinking: true, tryItOutEnabled: false },
    staticCSP: true,
  });
}
