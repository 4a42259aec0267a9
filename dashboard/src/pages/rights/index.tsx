// Rights: the DSR queue (/rights/dsr) and the grievance queue (/rights/grievances), each with the
// organisation's response periods; /rights opens the DSR queue. Details are their own routes
// (DsrDetail.tsx, GrievanceDetail.tsx).
import type { PageProps } from "../../routes.js";
import { EmptyState, Page } from "../../ui/index.js";
import { Link } from "../../router.js";
import { DsrQueue } from "./DsrQueue.js";
import { GrievanceQueue } from "./GrievanceQueue.js";
import "./rights.css";

export default function RightsPage({ params }: PageProps) {
  const queue = params.queue ?? "dsr";
  if (queue === "dsr") return <DsrQueue />;
  if (queue === "grievances") return <GrievanceQueue />;
  return (
    <Page title="Rights">
      <EmptyState title="No such queue">
        Open the <Link to="/rights/dsr">data subject requests</Link> or the{" "}
        <Link to="/rights/grievances">grievances</Link>.
      </EmptyState>
    </Page>
  );
}
