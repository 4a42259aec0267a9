// First-party storage of the visitor's decision (BANNER-SPEC "Storage"). localStorage holds the
// decision; a cookie holds the anonymous id too, because the fiduciary's backend can read a cookie
// at sign-in (and link the guest's consents to the account) but cannot read localStorage. Where
// storage throws (Safari private mode, blocked cookies) the decision lives in memory for the page.
import { uuidV4 } from "../../sdks/js/src/uuid.js";
import type { BannerNotice, Choices, StoredDecision } from "./types.js";

export const decisionKey = (orgId: string): string => `guard:${orgId}`;
/** slug → organisation id, so a returning visitor's decision applies before any request. */
export const slugKey = (slug: string): string => `guard:slug:${slug}`;
export const cookieName = (slug: string): string => `guard_anon_${slug.replace(/[^A-Za-z0-9_-]/g, "_")}`;

const ONE_YEAR_S = 31_536_000;
const ID_PATTERN = /^[A-Za-z0-9._:-]{1,200}$/;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

function recordOf<T>(value: unknown, check: (item: unknown) => item is T): Record<string, T> | undefined {
  if (!isRecord(value)) return undefined;
  const out: Record<string, T> = {};
  for (const [key, item] of Object.entries(value)) {
    if (!check(item)) return undefined;
    out[key] = item;
  }
  return out;
}

/**
 * A stored decision, or null when the value is absent, corrupt or not ours (another script may use
 * the same key, a user may edit it): a bad value means "no decision", so the banner asks again
 * rather than acting on something the visitor never chose.
 */
export function parseDecision(raw: string | null | undefined): StoredDecision | null {
  if (!raw) return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!isRecord(value) || value.v !== 1) return null;
  const { anonymousId, noticeId, noticeVersion, decidedAt } = value;
  const purposes = recordOf(value.purposes, (item): item is boolean => typeof item === "boolean");
  const consentIds = recordOf(value.consentIds, (item): item is string => typeof item === "string");
  if (
    typeof anonymousId !== "string" ||
    !ID_PATTERN.test(anonymousId) ||
    typeof noticeId !== "string" ||
    noticeId === "" ||
    typeof noticeVersion !== "number" ||
    !Number.isInteger(noticeVersion) ||
    typeof decidedAt !== "number" ||
    !Number.isFinite(decidedAt) ||
    !purposes ||
    !consentIds
  ) {
    return null;
  }
  return { v: 1, anonymousId, noticeId, noticeVersion, purposes, consentIds, decidedAt };
}

/** The banner must ask when there is no decision for this notice version or a purpose has no choice. */
export function needsDecision(stored: StoredDecision | null, notice: BannerNotice): boolean {
  if (!stored) return true;
  if (stored.noticeId !== notice._id || stored.noticeVersion !== notice.version) return true;
  return notice.itemized.some((item) => typeof stored.purposes[item.purpose] !== "boolean");
}

/** The value of cookie `name` in a `document.cookie` string. */
export function readCookie(cookies: string, name: string): string | undefined {
  for (const part of cookies.split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) {
      const value = part.slice(at + 1).trim();
      return ID_PATTERN.test(value) ? value : undefined;
    }
  }
  return undefined;
}

export function anonymousIdCookie(slug: string, id: string, secure: boolean): string {
  return `${cookieName(slug)}=${id}; Path=/; Max-Age=${ONE_YEAR_S}; SameSite=Lax${secure ? "; Secure" : ""}`;
}

export const choicesEqual = (a: Choices, b: Choices): boolean =>
  Object.keys(a).length === Object.keys(b).length && Object.keys(a).every((key) => a[key] === b[key]);

/** localStorage and document.cookie, each falling back to memory when the browser refuses it. */
export class DecisionStore {
  private readonly memory = new Map<string, string>();

  constructor(
    private readonly win: Window,
    private readonly slug: string,
  ) {}

  private read(key: string): string | null {
    try {
      return this.win.localStorage.getItem(key) ?? this.memory.get(key) ?? null;
    } catch {
      return this.memory.get(key) ?? null;
    }
  }

  private write(key: string, value: string): void {
    this.memory.set(key, value);
    try {
      this.win.localStorage.setItem(key, value);
    } catch {
      // Private mode or storage full: the memory copy keeps this page working.
    }
  }

  /** The organisation id remembered for this slug (a returning visitor), read before any request. */
  knownOrgId(): string | undefined {
    return this.read(slugKey(this.slug)) ?? undefined;
  }

  load(orgId: string): StoredDecision | null {
    return parseDecision(this.read(decisionKey(orgId)));
  }

  /** The id this browser uses with the organisation: stored, else the cookie's, else undefined. */
  knownAnonymousId(orgId: string | undefined): string | undefined {
    const stored = orgId === undefined ? null : this.load(orgId);
    if (stored) return stored.anonymousId;
    try {
      return readCookie(this.win.document.cookie, cookieName(this.slug));
    } catch {
      return undefined;
    }
  }

  save(orgId: string, decision: StoredDecision): void {
    this.write(slugKey(this.slug), orgId);
    this.write(decisionKey(orgId), JSON.stringify(decision));
    try {
      this.win.document.cookie = anonymousIdCookie(
        this.slug,
        decision.anonymousId,
        this.win.location.protocol === "https:",
      );
    } catch {
      // Cookies blocked: linking after sign-in can still use Guard.anonymousId.
    }
  }
}

/** A random UUIDv4 for the anonymous id (made the way @guard/js makes idempotency keys). */
export const mintAnonymousId = (webCrypto: Crypto = globalThis.crypto): string => uuidV4(webCrypto);
