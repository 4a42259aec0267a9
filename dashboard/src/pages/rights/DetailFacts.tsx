// The facts list at the top of a DSR or grievance page. Both kinds share the same clock facts
// (status, principal, filing time, deadline with its SLA state); `lead` holds the kind's own facts
// between its id and its status, `children` the ones after the deadline.
import type { ReactNode } from "react";
import type { Schemas } from "../../api/client.js";
import { DateTime } from "../../ui/index.js";
import { PrincipalLink } from "./PrincipalLink.js";
import { Sla } from "./Sla.js";

/** What every rights item has that the shared facts show. */
export interface CaseItem {
  status: string;
  externalId?: string;
  createdAt?: number;
  dueAt?: number;
  dueState?: Schemas["DueState"];
}

/** One term and its description; `text` keeps the principal's or staff's line breaks. */
export function Fact({
  term,
  text = false,
  children,
}: {
  term: string;
  text?: boolean;
  children: ReactNode;
}) {
  return (
    <>
      <dt>{term}</dt>
      <dd className={text ? "rights-text" : undefined}>{children}</dd>
    </>
  );
}

export function DetailFacts({
  idLabel,
  id,
  item,
  statusLabel,
  lead,
  children,
}: {
  idLabel: string;
  id: string;
  item: CaseItem;
  statusLabel: string;
  lead?: ReactNode;
  children: ReactNode;
}) {
  return (
    <dl className="rights-facts">
      <Fact term={idLabel}>
        <code className="rights-id">{id}</code>
      </Fact>
      {lead}
      <Fact term="Status">
        <span className={`status-badge status-${item.status}`}>{statusLabel}</span>
      </Fact>
      <Fact term="Principal">
        <PrincipalLink externalId={item.externalId} />
      </Fact>
      <Fact term="Filed">
        <DateTime value={item.createdAt} />
      </Fact>
      <Fact term="Deadline">
        <DateTime value={item.dueAt} /> · <Sla dueAt={item.dueAt} state={item.dueState} />
      </Fact>
      {children}
    </dl>
  );
}
