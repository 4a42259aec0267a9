// One write at a time on a DSR or grievance page. The server stays the judge of every move: its
// refusal is kept as `error` (a field's message goes next to that field), and a refused move
// (INVALID_STATUS_TRANSITION: someone moved the item meanwhile) reads the item again so the page
// offers only the moves that are still allowed.
import { useState } from "react";
import { ApiError } from "../../api/errors.js";

export function useDetailWrite(reload: () => void, clearForm: () => void) {
  const [error, setError] = useState<unknown>(undefined);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  /** After a write succeeded: the form is emptied, `message` is shown and the item read again. */
  const succeeded = (message: string) => {
    clearForm();
    setError(undefined);
    setDone(message);
    reload();
  };

  /** Runs `write`, which answers what happened in words; never throws (a failure lands in `error`). */
  const run = async (write: () => Promise<string>): Promise<void> => {
    setBusy(true);
    setDone(null);
    setError(undefined);
    try {
      succeeded(await write());
    } catch (caught) {
      if (caught instanceof ApiError && caught.code === "INVALID_STATUS_TRANSITION") reload();
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return { error, done, busy, run, succeeded };
}
