// A minimal webhook receiver for docs/getting-started.md: checks each delivery's X-DPDP-Signature
// (HMAC-SHA256 of the raw body, keyed with the whole endpoint secret string, compared in constant
// time) and prints what it verified. The server SDKs do this (and the Standard Webhooks headers)
// for you: verifyWebhookSignature / verify_webhook_signature / verifyWebhookSignature.
//
//   node docs/examples/webhook-receiver.mjs <whsec_… secret> [port]
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";

const [secret, port = "9099"] = process.argv.slice(2);
if (!secret?.startsWith("whsec_")) {
  console.error("usage: node docs/examples/webhook-receiver.mjs <whsec_… secret> [port]");
  process.exit(2);
}

function signatureValid(rawBody, header) {
  if (typeof header !== "string" || !/^[0-9a-f]{64}$/i.test(header)) return false;
  const expected = createHmac("sha256", secret).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(header, "hex"));
}

createServer((request, response) => {
  const chunks = [];
  request.on("data", (chunk) => chunks.push(chunk));
  request.on("end", () => {
    const rawBody = Buffer.concat(chunks);
    if (!signatureValid(rawBody, request.headers["x-dpdp-signature"])) {
      console.log("REJECTED a delivery with a bad signature");
      response.writeHead(401).end();
      return;
    }
    const event = JSON.parse(rawBody.toString("utf8"));
    console.log(`verified ${event.eventType} for ${event.payload.consentId ?? event.eventId}`);
    // Answer 2xx quickly; Guard retries anything else.
    response.writeHead(204).end();
  });
}).listen(Number(port), "127.0.0.1");
