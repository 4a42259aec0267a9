import { useCallback, useState } from "react";
import { newIdempotencyKey } from "../api/client.js";

/**
 * One Idempotency-Key per user action: pass `key` with the POST (headers: {"Idempotency-Key": key})
 * and call `renew()` once the action succeeded (or the user changed what they submit). A retry
 * after a timeout or a network error then reuses the key, so Guard creates the record once.
 */
export function useIdempotencyKey(): { key: string; renew: () => void } {
  const [key, setKey] = useState(newIdempotencyKey);
  const renew = useCallback(() => setKey(newIdempotencyKey()), []);
  return { key, renew };
}
