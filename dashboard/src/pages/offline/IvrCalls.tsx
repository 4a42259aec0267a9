// IVR calls (issue 26 item 6): the artefacts telephony partners reported, as stored and never
// changed: the keys pressed, the recording's address, the transcript, and the consent an acceptance
// gave (and when it was withdrawn, if it was). Read-only for every role: an artefact is evidence, and a withdrawal is made on the consent.
// The withdrawal code read out to the caller is never shown (the contract's record does not carry it).
import { useState } from "react";
import { api, ok, type Schemas } from "../../api/client.js";
import { DataTable, DateTime, type Column } from "../../ui/index.js";
import { PagedBody, ShowFilter } from "../integrations/ListStatus.js";
import { usePagedList } from "../integrations/usePagedList.js";
import { CapabilityOff, isSwitchedOff } from "./shared.js";

type IvrArtifact = Schemas["IvrConsentArtifactRecord"];
type Shown = "all" | "accepted" | "refused";

const IVR_FILTERS: { value: Shown; label: string }[] = [
  { value: "all", label: "All calls" },
  { value: "accepted", label: "Accepted (a consent was given)" },
  { value: "refused", label: "Refused" },
];

const columns: Column<IvrArtifact>[] = [
  {
    key: "call",
    header: "Call",
    rowHeader: true,
    render: (a) => (
      <>
        <code className="integrations-break">{a.partnerCallId}</code>
        <span className="offline-sub">
          <code className="integrations-break">{a.artifactId}</code>
        </span>
      </>
    ),
  },
  { key: "received", header: "Received", render: (a) => <DateTime value={a.receivedAt} /> },
  { key: "purpose", header: "Purpose", render: (a) => a.purpose },
  {
    key: "notice",
    header: "Notice",
    render: (a) => (
      <>
        <code className="integrations-break">{a.noticeId}</code> v{a.noticeVersion}
        <span className="offline-sub">played in {a.locale}</span>
      </>
    ),
  },
  {
    key: "outcome",
    header: "Outcome",
    render: (a) => (
      <>
        <span className={`integrations-state integrations-state-${a.accepted ? "ok" : "muted"}`}>
          {a.accepted ? "Accepted" : "Refused"}
        </span>
        <span className="offline-sub">
          keys pressed <code>{a.dtmfSequence}</code>
          {a.consentId ? (
            <>
              {", consent "}
              <code className="integrations-break">{a.consentId}</code>
            </>
          ) : null}
        </span>
        {a.consentWithdrawnAt !== null ? (
          <span className="offline-sub">
            Withdrawn <DateTime value={a.consentWithdrawnAt} />
          </span>
        ) : null}
      </>
    ),
  },
  {
    key: "evidence",
    header: "Recording",
    // The address as text, never a link: it is whatever the partner sent.
    render: (a) => (
      <>
        <code className="integrations-break">{a.audioRecordingUri}</code>
        {a.transcript !== null ? (
          <details className="offline-transcript">
            <summary>Transcript</summary>
            <p>{a.transcript}</p>
          </details>
        ) : null}
      </>
    ),
  },
];

export function IvrSection() {
  const [shown, setShown] = useState<Shown>("all");
  const list = usePagedList(
    async (cursor) => {
      const outcome = shown === "all" ? undefined : shown;
      const data = await ok(api.GET("/api/v1/staff/offline/ivr", { params: { query: { cursor, outcome } } }));
      return { items: data.artifacts, nextCursor: data.nextCursor };
    },
    [shown],
  );
  // 404 while the organisation's `offline_async_consent` capability is off.
  const switchedOff = isSwitchedOff(list.error);

  return (
    <section className="integrations-section" aria-labelledby="ivr">
      <h2 id="ivr">IVR calls</h2>
      <p className="integrations-intro">
        A telephony partner plays your notice on a call and reports what the caller pressed: pressing 1 first
        gives a consent, anything else is kept as a refusal. Each call is stored as the partner reported it
        and never changed. The withdrawal code read out to the caller is not shown here.
      </p>
      {switchedOff ? (
        <CapabilityOff what="Point-of-sale and IVR consent" capability="offline_async_consent" />
      ) : (
        <>
          <ShowFilter
            value={shown}
            onChange={setShown}
            options={IVR_FILTERS}
            label="Which IVR calls to show"
          />
          <PagedBody list={list} what="IVR calls">
            <DataTable
              caption="Calls reported by telephony partners"
              captionHidden
              columns={columns}
              rows={list.items}
              rowKey={(a) => a.artifactId}
              empty={<p className="integrations-empty">No IVR calls to show.</p>}
            />
          </PagedBody>
        </>
      )}
    </section>
  );
}
