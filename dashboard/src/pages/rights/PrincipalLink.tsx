// The principal of a DSR or grievance, linked to the Consent lookup page, which shows their consents
// and their nomination (issue 24: "nominations visible per principal"). That page keeps its search
// in the URL as ?by=externalId&q=<id>.
import { Link, withQuery } from "../../router.js";

export function PrincipalLink({ externalId }: { externalId: string | undefined }) {
  if (!externalId) return <span>—</span>;
  return (
    <>
      <Link to={withQuery("/consent-lookup", { by: "externalId", q: externalId })}>{externalId}</Link>{" "}
      <span className="rights-hint">(consents and nomination)</span>
    </>
  );
}
