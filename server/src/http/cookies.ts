// The one cookie Guard uses, the staff session: set or cleared here by sign-in and sign-out, and
// read by the access check only where an operation accepts a staff session (access/credentials.ts).
// Done with the `cookie` package directly rather than a Fastify plugin, because the plugin adds an
// `onSend` hook and per-request fields that every request would pay for, to serve two routes.
import { stringifySetCookie } from "cookie";
import type { FastifyReply } from "fastify";

export interface CookieOptions {
  path: string;
  httpOnly: boolean;
  sameSite: "lax" | "strict";
  secure: boolean;
  /** Seconds; absent for a cookie that ends with the browser session. */
  maxAge?: number;
}

export function setCookie(reply: FastifyReply, name: string, value: string, options: CookieOptions): void {
  // Fastify keeps each `set-cookie` header given (it never merges them into one).
  reply.header("set-cookie", stringifySetCookie({ name, value, ...options }));
}

/** Tells the browser to drop the cookie now (empty value, expired, Max-Age=0). */
export function clearCookie(reply: FastifyReply, name: string, options: Omit<CookieOptions, "maxAge">): void {
  reply.header(
    "set-cookie",
    stringifySetCookie({ name, value: "", ...options, maxAge: 0, expires: new Date(0) }),
  );
}
