import { Link } from "../../router.js";

/** Links between the two queues (also in the side navigation; here so the pair reads as one page). */
export function QueueTabs({ current }: { current: "dsr" | "grievances" }) {
  return (
    <nav className="queue-tabs" aria-label="Rights queues">
      <Link to="/rights/dsr" aria-current={current === "dsr" ? "page" : undefined}>
        Data subject requests
      </Link>
      <Link to="/rights/grievances" aria-current={current === "grievances" ? "page" : undefined}>
        Grievances
      </Link>
    </nav>
  );
}
