// Every response names its request: `x-request-id`, and `requestId` in every error body. A request
// id from the caller is kept when it is a sane token, so one id follows a request through proxies;
// otherwise we mint one.
import { randomBase62 } from "../lib/ids.js";

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

export const newRequestId = (): string => `req_${randomBase62(16)}`;

export function requestIdFor(request: { headers: Record<string, string | string[] | undefined> }): string {
  const incoming = request.headers["x-request-id"];
  if (typeof incoming === "string" && REQUEST_ID_PATTERN.test(incoming)) return incoming;
  return newRequestId();
}
