// QR consent links (issue 26 item 3): the links the organisation's back end minted for counters and
// posters, with how many principals agreed and declined on each; a dpo or admin disables one whose
// printed QR code must stop working. Minting needs the service key, so the page only shows how.
import { useState } from "react";
import { api, ok, type Schemas } from "../../api/client.js";
import {
  ConfirmDialog,
  CopyButton,
  DataTable,
  DateTime,
  Notice,
  useCanWrite,
  WriteGuard,
  type Column,
} from "../../ui/index.js";
import { PagedBody, ShowFilter } from "../integrations/ListStatus.js";
import { usePagedList } from "../integrations/usePagedList.js";
import { CapabilityOff, isSwitchedOff } from "./shared.js";

type Link = Schemas["OfflineConsentLinkRecord"];
type LinkFilter = "" | "active" | "disabled";
const LINK_FILTERS: { value: LinkFilter; label: string }[] = [
  { value: "", label: "All links" },
  { value: "active", label: "Active only" },
  { value: "disabled", label: "Disabled only" },
];

const linkName = (l: Link) => l.label ?? l.linkId;

/** The service-key call that mints a link, for the organisation's developers to copy. */
export function createLinkCurl(origin: string): string {
  return [
    `curl -X POST ${origin}/api/v1/offline-consent/links \\`,
    `  -H "Authorization: Bearer $GUARD_API_KEY" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -H "Idempotency-Key: $(uuidgen)" \\`,
    `  -d '{"noticeId": "ntc_…", "purpose": "Marketing", "dataTypes": ["phone"], "label": "Pune branch, counter 3"}'`,
  ].join("\n");
}

export function LinksSection() {
  const canWrite = useCanWrite();
  const [status, setStatus] = useState<LinkFilter>("");
  const list = usePagedList(
    async (cursor) => {
      const data = await ok(
        api.GET("/api/v1/staff/offline-consent/links", {
          params: { query: { cursor, ...(status ? { status } : {}) } },
        }),
      );
      return { items: data.links, nextCursor: data.nextCursor };
    },
    [status],
  );
  const [disabling, setDisabling] = useState<Link | null>(null);
  const [done, setDone] = useState<string | null>(null);
  // 404 while the organisation's `offline_consent_links` capability is off.
  const switchedOff = isSwitchedOff(list.error);
  const curl = createLinkCurl(window.location.origin);

  const columns: Column<Link>[] = [
    {
      key: "label",
      header: "Label",
      rowHeader: true,
      render: (l) =>
        l.label === null ? (
          <code className="integrations-break">{l.linkId}</code>
        ) : (
          <span title={l.linkId}>{l.label}</span>
        ),
    },
    { key: "purpose", header: "Purpose", render: (l) => l.purpose },
    {
      key: "notice",
      header: "Notice",
      render: (l) => <code className="integrations-break">{l.noticeId}</code>,
    },
    { key: "created", header: "Created", render: (l) => <DateTime value={l.createdAt} /> },
    {
      key: "answers",
      header: "Answers",
      render: (l) => `${l.acceptedCount} agreed, ${l.declinedCount} declined`,
    },
    {
      key: "state",
      header: "State",
      render: (l) =>
        l.disabledAt === null ? (
          <span className="integrations-state integrations-state-ok">Active</span>
        ) : (
          <span className="integrations-state integrations-state-off">
            Disabled <DateTime value={l.disabledAt} />
          </span>
        ),
    },
  ];
  if (canWrite)
    columns.push({
      key: "actions",
      header: <span className="visually-hidden">Actions</span>,
      align: "end",
      render: (l) =>
        l.disabledAt === null ? (
          <button
            type="button"
            className="button button-small button-danger"
            aria-label={`Disable ${linkName(l)}`}
            onClick={() => setDisabling(l)}
          >
            Disable
          </button>
        ) : null,
    });

  return (
    <section className="integrations-section" aria-labelledby="links">
      <h2 id="links">QR consent links</h2>
      <p className="integrations-intro">
        Each link opens the notice on the principal&apos;s own phone, where they agree or decline. Tokens are
        shown only once, to the back end that minted them.
      </p>
      <p className="integrations-note">
        Links are minted with a service API key (<code>POST /api/v1/offline-consent/links</code>), not from
        the dashboard:
      </p>
      <div className="integrations-snippet">
        <pre className="integrations-pre" tabIndex={0} aria-label="Create a link with curl">
          {curl}
        </pre>
        <CopyButton text={curl} label="Copy curl command" />
        <p className="integrations-note">
          With the Node SDK:{" "}
          <code>await guard.createOfflineConsentLink({"{ noticeId, purpose, dataTypes, label }"})</code>;
          print the answer&apos;s <code>url</code> as the QR code.
        </p>
      </div>
      {done ? <Notice tone="success">{done}</Notice> : null}
      {switchedOff ? (
        <CapabilityOff what="QR consent links" capability="offline_consent_links" />
      ) : (
        <>
          {/* Nothing to wrap: the guard tells a viewer why the rows carry no disable buttons. */}
          <WriteGuard>{null}</WriteGuard>
          <ShowFilter
            value={status}
            onChange={setStatus}
            options={LINK_FILTERS}
            label="Which links to show"
          />
          <PagedBody list={list} what="links">
            <DataTable
              caption="Consent links"
              captionHidden
              columns={columns}
              rows={list.items}
              rowKey={(l) => l.linkId}
              empty={<p className="integrations-empty">No links to show.</p>}
            />
          </PagedBody>
        </>
      )}
      <ConfirmDialog
        open={disabling !== null}
        title={`Disable the link “${disabling ? linkName(disabling) : ""}”?`}
        confirmLabel="Disable link"
        danger
        onCancel={() => setDisabling(null)}
        onConfirm={async () => {
          if (!disabling) return;
          await ok(
            api.POST("/api/v1/staff/offline-consent/links/{linkId}/disable", {
              params: { path: { linkId: disabling.linkId } },
            }),
          );
          setDone(`“${linkName(disabling)}” is disabled: its QR code now says the link no longer works.`);
          setDisabling(null);
          list.reload();
        }}
      >
        <p>
          Its page stops working at once, wherever the QR code is printed. Consents already given through it
          stay valid, and its answers stay as evidence. A disabled link cannot be enabled again: mint a new
          one.
        </p>
      </ConfirmDialog>
    </section>
  );
}
