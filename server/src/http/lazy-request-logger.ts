// Fastify gives every request a child logger bound to its request id. Building a pino child costs
// a few microseconds (bindings serialised, redaction set up) that most requests never use: at the
// usual levels a successful request logs nothing of its own. This child is created only when a
// line at an enabled level is actually written, or when something asks for the real logger.
import type { FastifyBaseLogger } from "fastify";

type Level = "fatal" | "error" | "warn" | "info" | "debug" | "trace";
type Bindings = Record<string, unknown>;
type ChildLoggerOptions = { level?: string; serializers?: unknown };
/** The part of a pino logger this needs (Fastify's logger is pino). */
type Logger = FastifyBaseLogger & {
  isLevelEnabled(level: string): boolean;
  child(bindings: Bindings, options?: ChildLoggerOptions): Logger;
};

class LazyRequestLogger {
  private real: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private logger(): Logger {
    this.real ??= this.parent.child(this.bindings, this.options);
    return this.real;
  }

  private write(level: Level, args: unknown[]): void {
    // Until the child exists it has the parent's level (a per-route level makes it at once).
    if (!(this.real ?? this.parent).isLevelEnabled(level)) return;
    (this.logger()[level] as (...a: unknown[]) => void)(...args);
  }

  get level(): string {
    return (this.real ?? this.parent).level;
  }
  set level(value: string) {
    this.logger().level = value;
  }
  isLevelEnabled(level: string): boolean {
    return this.logger().isLevelEnabled(level);
  }
  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.logger().child(bindings, options);
  }
  silent(): void {}
  fatal(...args: unknown[]): void {
    this.write("fatal", args);
  }
  error(...args: unknown[]): void {
    this.write("error", args);
  }
  warn(...args: unknown[]): void {
    this.write("warn", args);
  }
  info(...args: unknown[]): void {
    this.write("info", args);
  }
  debug(...args: unknown[]): void {
    this.write("debug", args);
  }
  trace(...args: unknown[]): void {
    this.write("trace", args);
  }
}

/** For Fastify's `childLoggerFactory` (the app's logger is pino). */
export function lazyRequestLogger(
  parent: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  const pino = parent as unknown as Logger;
  // A route with its own level or serializers gets its real child at once: rare, and simpler.
  if (options.level !== undefined || options.serializers !== undefined) return pino.child(bindings, options);
  return new LazyRequestLogger(pino, bindings, options) as unknown as FastifyBaseLogger;
}
