// Integrations (issue 24, page 2): everything a fiduciary's developers need to connect to Guard, as
// anchored sections of one page: service API keys, webhook endpoints and their deliveries, the
// banner snippet, the registered domains and apps it serves, and the devices enrolled to sign
// offline capture sessions.
import { Page } from "../../ui/index.js";
import { ApiKeysSection } from "./ApiKeys.js";
import { DevicesSection } from "./Devices.js";
import { AppsSection, DomainsSection, useRegisteredDomains } from "./Registered.js";
import { SnippetSection } from "./Snippet.js";
import { WebhooksSection } from "./Webhooks.js";
import "./integrations.css";

const SECTIONS = [
  { id: "api-keys", label: "API keys" },
  { id: "webhooks", label: "Webhooks" },
  { id: "snippet", label: "Banner snippet" },
  { id: "domains", label: "Domains" },
  { id: "apps", label: "Apps" },
  { id: "devices", label: "Capture devices" },
];

export default function IntegrationsPage() {
  // One list feeds both the snippet (which domains it serves) and the domains section, so a
  // domain registered below shows up beside the snippet at once.
  const domains = useRegisteredDomains();
  return (
    <Page
      title="Integrations"
      intro="Connect your servers, your sites, your apps and your capture devices to Guard: API keys, webhooks, the banner snippet and where it may run, and the devices that capture consent offline."
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
      <ApiKeysSection />
      <WebhooksSection />
      <SnippetSection domains={domains} />
      <DomainsSection list={domains} />
      <AppsSection />
      <DevicesSection />
    </Page>
  );
}
