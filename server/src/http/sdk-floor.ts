// `X-Guard-SDK: <package>/<version>`: a deployment may refuse SDK versions below a floor (426), so
// a known-bad client release can be turned away with a clear code instead of misbehaving.
import type { FastifyRequest } from "fastify";
import { Failure } from "../lib/failure.js";

const EXEMPT_PATHS = new Set(["/healthz", "/readyz", "/api/v1/openapi.json"]);

function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map((n) => Number.parseInt(n, 10) || 0);
  const pb = b.split(".").map((n) => Number.parseInt(n, 10) || 0);
  for (let i = 0; i < 3; i++) {
    const diff = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

export function sdkFloorHook(floors: Record<string, string>) {
  const hasFloors = Object.keys(floors).length > 0;
  return async (request: FastifyRequest): Promise<void> => {
    if (!hasFloors) return;
    const header = request.headers["x-guard-sdk"];
    if (typeof header !== "string") return;
    const match = /^(\S+)\/(\d+\.\d+\.\d+)(-[^+\s]*)?(?:\+\S*)?$/.exec(header.trim());
    if (!match) return;
    const [, name, version, prerelease] = match as unknown as [string, string, string, string | undefined];
    const floor = floors[name];
    if (!floor || EXEMPT_PATHS.has(request.url.split("?")[0]!)) return;
    // Semver: a pre-release of the floor (2.0.0-beta.1) comes before the floor itself.
    const order = compareVersions(version, floor);
    if (order < 0 || (order === 0 && prerelease !== undefined)) {
      throw new Failure(
        "SDK_VERSION_UNSUPPORTED",
        `${name} ${version}${prerelease ?? ""} is no longer supported; upgrade to ${floor} or later`,
      );
    }
  };
}
