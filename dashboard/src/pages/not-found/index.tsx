import { Link } from "../../router.js";
import { EmptyState, Page } from "../../ui/index.js";

export function NotFoundPage({ path }: { path: string }) {
  return (
    <Page title="Page not found">
      <EmptyState
        title={`There is no dashboard page at ${path}`}
        action={<Link to="/">Go to the overview</Link>}
      />
    </Page>
  );
}
