// Response serializers compiled on first use instead of at start-up. Fastify compiles a
// fast-json-stringify function for every response schema of every route when the app starts, most
// of a start's schema work (bench/README.md, "Start-up"); most routes of a given deployment answer
// rarely or never. Each serializer is now compiled by the first response that needs it, once, and
// reused after; the output is the same.
import { SerializerSelector } from "@fastify/fast-json-stringify-compiler";

type Serialize = (data: unknown) => string;
type BuildSerializer = ReturnType<typeof SerializerSelector>;

/** `eager` compiles every serializer at start-up, as Fastify does by default (a test's check). */
export function serializerFactory(eager: boolean): BuildSerializer {
  return (externalSchemas, options) => {
    const compile = SerializerSelector()(externalSchemas, options);
    if (eager) return compile;
    return (route) => {
      let serialize: Serialize | undefined;
      return (data: unknown) => (serialize ??= compile(route) as Serialize)(data);
    };
  };
}
