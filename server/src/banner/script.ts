// The hosted banner script (built from `banner/` into `banner/dist/`), as Guard serves it: its
// bytes, the hashes browsers and the install snippet need, and its content-addressed file name.
// The hashes are computed here from the bytes served, so a stale or edited manifest cannot make
// Subresource Integrity fail in every visitor's browser.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export interface BannerScript {
  body: Buffer;
  /** Lowercase hex SHA-256 of `body`. */
  sha256: string;
  /** Subresource Integrity value, `sha384-<base64>`. */
  integrity: string;
  /** The banner's own version (banner/package.json via the build's manifest). */
  version: string;
  /** `guard.<first 16 hex of sha256>.js`: the name served with a one-year immutable cache. */
  hashedName: string;
}

/** Where `npm run build -w banner` writes the script (`npm start` runs it first). */
export const DEFAULT_BANNER_DIST = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../../banner/dist",
);

export function bannerScriptFrom(body: Buffer, version: string): BannerScript {
  const sha256 = createHash("sha256").update(body).digest("hex");
  return {
    body,
    sha256,
    integrity: `sha384-${createHash("sha384").update(body).digest("base64")}`,
    version,
    hashedName: `guard.${sha256.slice(0, 16)}.js`,
  };
}

/** The built script in `dir`, or undefined when it has not been built. */
export function loadBannerScript(dir: string = DEFAULT_BANNER_DIST): BannerScript | undefined {
  let body: Buffer;
  try {
    body = fs.readFileSync(path.join(dir, "guard.js"));
  } catch {
    return undefined;
  }
  let version = "unknown";
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8")) as {
      version?: unknown;
    };
    if (typeof manifest.version === "string") version = manifest.version;
  } catch {
    // The version is informational; the script itself is what matters.
  }
  return bannerScriptFrom(body, version);
}

/** The one line a fiduciary pastes into its pages. */
export function bannerSnippet(script: BannerScript, baseUrl: string, organizationSlug: string) {
  const scriptUrl = `${baseUrl}/banner/v1/${script.hashedName}`;
  const slug = organizationSlug.replace(/[^a-z0-9-]/g, "");
  return {
    snippet: `<script src="${scriptUrl}" integrity="${script.integrity}" crossorigin="anonymous" data-org="${slug}" async></script>`,
    scriptUrl,
    integrity: script.integrity,
    bannerVersion: script.version,
  };
}
