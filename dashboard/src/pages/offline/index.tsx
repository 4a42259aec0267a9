// Offline capture (issue 26): what staff review of the offline and assisted channels: signed device
// captures held in quarantine, the QR consent links, the point-of-sale requests left unanswered and
// the IVR calls partners reported, as anchored sections of one page. Each section stands alone: its
// own capability, list and errors.
import { Page } from "../../ui/index.js";
import { CapturesSection } from "./Captures.js";
import { IvrSection } from "./IvrCalls.js";
import { LinksSection } from "./Links.js";
import { PosSection } from "./PosRequests.js";
import "../integrations/integrations.css";
import "./offline.css";

const SECTIONS = [
  { id: "captures", label: "Captures to review" },
  { id: "links", label: "QR consent links" },
  { id: "pos", label: "Point-of-sale requests" },
  { id: "ivr", label: "IVR calls" },
];

export default function OfflinePage() {
  return (
    <Page
      title="Offline capture"
      intro="Consent captured away from your website and apps: device sessions held for review, the QR links printed at your counters, point-of-sale requests customers left unanswered, and the calls your IVR partner reported."
    >
      <nav className="integrations-toc" aria-label="Sections of this page">
        <ul>
          {SECTIONS.map((s) => (
            <li key={s.id}>
              <a href={`#${s.id}`}>{s.label}</a>
            </li>
          ))}
        </ul>
      </nav>
      <CapturesSection />
      <LinksSection />
      <PosSection />
      <IvrSection />
    </Page>
  );
}
