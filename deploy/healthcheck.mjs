#!/usr/bin/env node
// The container's health check (Dockerfile HEALTHCHECK, deploy/compose.yaml): GET /healthz on this
// instance, exit 0 on 200 and 1 otherwise. Plain Node (no curl in the image, no TypeScript loader),
// and it reads the same settings as the server: PORT (default 8080) and GUARD_HOST, where a
// wildcard address (0.0.0.0, ::) or none means the loopback address.
import http from "node:http";

const TIMEOUT_MS = 4000;
const port = Number(process.env.PORT || 8080);
const configured = (process.env.GUARD_HOST || "").trim();
const wildcard =
  configured === "" || configured === "0.0.0.0" || configured === "::" || configured === "[::]";
const host = wildcard ? "127.0.0.1" : configured.replace(/^\[(.*)\]$/, "$1");

const request = http.get({ host, port, path: "/healthz", timeout: TIMEOUT_MS }, (response) => {
  response.resume();
  response.on("end", () => process.exit(response.statusCode === 200 ? 0 : 1));
});
request.on("timeout", () => {
  process.stderr.write(`healthcheck: no answer from ${host}:${port} within ${TIMEOUT_MS} ms\n`);
  request.destroy();
  process.exit(1);
});
request.on("error", (error) => {
  process.stderr.write(`healthcheck: ${error.message}\n`);
  process.exit(1);
});
