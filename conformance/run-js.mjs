// The @guard/js adapter of the conformance suite (imported from source: run it with
// `node --import tsx`, so it runs on Node's own fetch). The scenario format and the adapter contract
// are in conformance/README.md; the runner is runner.mjs.
//
// @guard/js is a page's client: it holds no service API key. A scenario's client options may name
// one, and some scenarios start by brokering a principal token. Here, as in a real deployment, the
// page's backend does that: each scenario client is a @guard/js client paired with a @guard/server
// client (the backend) built from the same options. Only BACKEND_METHODS go to the backend, as setup
// or as a check of what the page did; every other step is a @guard/js call. A scenario that calls
// any other method @guard/js lacks (the Consent Gate, /cm/v1 consents, webhook and audit-hash
// helpers) is skipped, naming what it needs.
import { runConformance } from "./runner.mjs";

const js = await import(new URL("../sdks/js/src/index.ts", import.meta.url).href);
const server = await import(new URL("../sdks/node/src/index.ts", import.meta.url).href);

/** @guard/js's methods and how many positional arguments come before the per-request options. */
const JS_METHODS = {
  getOrganization: 1,
  getNotices: 2,
  getNotice: 1,
  getBannerConfig: 2,
  giveAnonymousConsent: 1,
  setAccessToken: 1,
  linkAnonymousConsent: 1,
  listDsrRequests: 1,
  createDsrRequest: 1,
  listGrievances: 1,
  createGrievance: 1,
  getNomination: 0,
  upsertNomination: 1,
  revokeNomination: 0,
  withdrawConsentByToken: 1,
};
/**
 * What the fiduciary's backend does around the page with @guard/server: broker its token, record
 * an IVR call's consent (whose withdrawal token the page then takes), check the result.
 */
const BACKEND_METHODS = {
  brokerToken: 1,
  getConsentStatus: 1,
  recordIvrConsentArtifact: 1,
  verifyConsent: 1,
};
const HELPERS = { hasConsent: js.hasConsent };

await runConformance({
  name: "js",
  buildClient(options) {
    const { apiKey: _serviceKey, ...pageOptions } = options;
    return { page: new js.GuardClient(pageOptions), backend: new server.GuardClient(options) };
  },
  clientMethods: { ...JS_METHODS, ...BACKEND_METHODS },
  async call(client, method, args) {
    if (method === "brokerToken") {
      // The backend brokers; the page receives the token (as @guard/server's client keeps it).
      const token = await client.backend.brokerToken(...args);
      client.page.setAccessToken(token.accessToken);
      return token;
    }
    if (method in BACKEND_METHODS) return client.backend[method](...args);
    return client.page[method](...args);
  },
  helpers: HELPERS,
  skipReason(scenario) {
    const missing = [
      ...new Set(
        scenario.steps
          .map((step) => step.call)
          .filter(
            (call) =>
              call !== undefined && !(call in JS_METHODS || call in BACKEND_METHODS || call in HELPERS),
          ),
      ),
    ];
    return missing.length === 0 ? undefined : `needs ${missing.join(", ")}, which @guard/js does not have`;
  },
});
