// docs/getting-started.md, steps 3 to 8, with the Node server SDK (@guard/server): a principal
// token, a consent, the Consent Gate, the withdrawal (and its webhook delivery, verified), a DSR.
//
//   GUARD=http://127.0.0.1:8080 GUARD_KEY=gk_live_... node docs/examples/getting-started.mjs
//
// With WEBHOOK_SECRET (and WEBHOOK_PORT) from step 6 it also listens for the withdrawal's delivery
// and verifies its signature; without them it skips that part.
import { createServer } from "node:http";
import { GuardClient, verifyStandardWebhook } from "@guard/server";

const { GUARD, GUARD_KEY, WEBHOOK_SECRET, WEBHOOK_PORT = "9099" } = process.env;
if (!GUARD || !GUARD_KEY)
  throw new Error("Set GUARD (the service's address) and GUARD_KEY (its service key)");
const user = { externalId: "user-43", email: "ravi@example.com" };

const guard = new GuardClient({ baseUrl: GUARD, apiKey: GUARD_KEY });

// 2. The organisation and its published notice (public reads).
const org = await guard.getOrganization("demo");
const { notices } = await guard.getNotices(org.orgId);
const notice = notices[0];
console.log(`organisation ${org.orgId}, notice ${notice.noticeId}`);

// 3. A principal token for your signed-in user; naming the email lets recordConsent find them.
// The client keeps the token for principal calls (step 8); hand token.accessToken to your app.
const token = await guard.brokerToken(user.externalId, { email: user.email });
console.log(`principal token: ${token.accessToken.slice(0, 12)}...`);

// 4. Record a consent. The SDK sends an Idempotency-Key and reuses it if it retries.
const consent = await guard.recordConsent({
  email: user.email,
  noticeId: notice.noticeId,
  purpose: "Marketing",
  dataTypes: ["email"],
});
console.log(`consent ${consent.consentId}`);

// 5. Ask the Consent Gate before processing: allow means go ahead.
console.log((await guard.verifyConsent(consent.consentId)).decision); // allow

// 6. Hear about withdrawals: a receiver that verifies each delivery before trusting it.
const delivered = WEBHOOK_SECRET ? receiveWithdrawal(consent.consentId) : null;

// 7. The principal withdraws: from now on the gate denies.
console.log((await guard.withdrawConsent(consent.consentId)).status); // withdrawn
console.log((await guard.verifyConsent(consent.consentId)).decision); // deny
console.log(delivered ? await delivered : "no WEBHOOK_SECRET: skipped the webhook delivery");

// 8. A rights request, with the principal token the client kept from step 3.
const dsr = await guard.createDsrRequest({ organizationId: org.orgId, type: "summary" });
console.log(`DSR ${dsr.requestId} is ${dsr.status}, due ${new Date(dsr.dueAt).toISOString()}`);

/** Listens on WEBHOOK_PORT until the delivery for `consentId` arrives (at most 15 s). */
function receiveWithdrawal(consentId) {
  return new Promise((resolve, reject) => {
    const server = createServer((request, response) => {
      const chunks = [];
      request.on("data", (chunk) => chunks.push(chunk));
      request.on("end", () => {
        const rawBody = Buffer.concat(chunks); // verify the bytes as received, not re-serialised JSON
        const check = verifyStandardWebhook(WEBHOOK_SECRET, rawBody, request.headers);
        response.writeHead(check.valid ? 204 : 401).end(); // answer 2xx quickly: Guard retries the rest
        if (!check.valid) return console.log(`rejected a delivery: ${check.reason}`);
        const event = JSON.parse(rawBody.toString("utf8"));
        if (event.payload?.consentId !== consentId) return; // another consent's (an earlier run's)
        clearTimeout(timer);
        server.close();
        resolve(`verified ${event.eventType} for ${consentId}`);
      });
    }).listen(Number(WEBHOOK_PORT), "127.0.0.1");
    const timer = setTimeout(() => {
      server.close();
      reject(new Error(`no verified delivery for ${consentId} on port ${WEBHOOK_PORT} within 15 s`));
    }, 15_000);
  });
}
