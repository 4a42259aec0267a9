// One export at a time: GET the streamed CSV through the app's client (same-origin cookie; a GET
// needs no CSRF token; a non-2xx answer arrives as ApiError and a 401 sends the user to sign-in),
// read the body chunk by chunk counting records against `X-Guard-Export-Rows`, keep the bytes for
// the download, and allow cancelling. The whole file is kept in memory only in the browser, where
// the user asked for it; the server streams it a page at a time.
import { useCallback, useEffect, useRef, useState } from "react";
import { api } from "../../api/client.js";
import { CsvRecordCounter, fileNameFrom } from "./csv-stream.js";

export type ExportState =
  | { phase: "idle" }
  | { phase: "running"; rows: number; expected: number | undefined; bytes: number }
  | {
      phase: "done";
      rows: number;
      expected: number | undefined;
      bytes: number;
      url: string;
      fileName: string;
      finishedAt: number;
      /** The body ended mid-record or with fewer rows than announced. */
      truncated: boolean;
    }
  | { phase: "cancelled"; rows: number }
  | { phase: "failed"; error: unknown; rows: number };

export function useCsvExport() {
  const [state, setState] = useState<ExportState>({ phase: "idle" });
  const controller = useRef<AbortController | null>(null);
  const objectUrl = useRef<string | null>(null);

  const releaseUrl = () => {
    if (objectUrl.current) URL.revokeObjectURL(objectUrl.current);
    objectUrl.current = null;
  };
  // Leaving the page stops a running export and frees the last file.
  useEffect(
    () => () => {
      controller.current?.abort();
      releaseUrl();
    },
    [],
  );

  const start = useCallback(async (from: number, to: number) => {
    controller.current?.abort();
    releaseUrl();
    const abort = new AbortController();
    controller.current = abort;
    const counter = new CsvRecordCounter();
    setState({ phase: "running", rows: 0, expected: undefined, bytes: 0 });
    try {
      const { data: body, response } = await api.GET("/api/v1/staff/exports/consent-evidence", {
        params: { query: { from, to } },
        parseAs: "stream",
        signal: abort.signal,
      });
      const header = response.headers.get("x-guard-export-rows");
      const expected = header !== null && /^\d+$/.test(header) ? Number(header) : undefined;
      if (!body) throw new Error("Guard answered without a body");
      const reader = body.getReader();
      const chunks: Uint8Array[] = [];
      let bytes = 0;
      setState({ phase: "running", rows: 0, expected, bytes: 0 });
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        bytes += value.length;
        counter.push(value);
        setState({ phase: "running", rows: counter.rows, expected, bytes });
      }
      const truncated =
        !counter.hasHeader || !counter.endsCleanly || (expected !== undefined && counter.rows < expected);
      const url = URL.createObjectURL(new Blob(chunks as BlobPart[], { type: "text/csv;charset=utf-8" }));
      objectUrl.current = url;
      const fileName = fileNameFrom(
        response.headers.get("content-disposition"),
        `guard-consent-evidence-${from}-${to}.csv`,
      );
      setState({
        phase: "done",
        rows: counter.rows,
        expected,
        bytes,
        url,
        fileName,
        finishedAt: Date.now(),
        truncated,
      });
    } catch (error) {
      // Cancelling rejects the pending read (or the request) with an abort: that is not a failure.
      if (abort.signal.aborted) setState({ phase: "cancelled", rows: counter.rows });
      else setState({ phase: "failed", error, rows: counter.rows });
    } finally {
      if (controller.current === abort) controller.current = null;
    }
  }, []);

  const cancel = useCallback(() => controller.current?.abort(), []);

  return { state, start, cancel };
}
