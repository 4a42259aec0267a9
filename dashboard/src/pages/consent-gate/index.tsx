// Consent Gate (issue 24, page 7): the decisions Guard's gate made for the organisation's services
// (newest first, paged), the bypass alerts derived from them (a consent denied `denyThreshold` times
// inside `windowMs`), and the two settings that define an alert. Every staff role reads; dpo and
// admin change the settings, through the organisation settings route.
import { useState } from "react";
import type { PageProps } from "../../routes.js";
import { Page } from "../../ui/index.js";
import { BypassAlerts } from "./BypassAlerts.js";
import { GateDecisions } from "./GateDecisions.js";
import { GateSettingsForm } from "./GateSettingsForm.js";
import "./gate.css";

export default function ConsentGatePage(_props: PageProps) {
  // Saved settings change what counts as an alert: the alerts reload with them.
  const [settingsVersion, setSettingsVersion] = useState(0);
  return (
    <Page
      title="Consent Gate"
      intro="Every allow or deny Guard's gate answered your services, and the consents that keep being denied."
    >
      <GateSettingsForm onSaved={() => setSettingsVersion((n) => n + 1)} />
      <BypassAlerts settingsVersion={settingsVersion} />
      <GateDecisions />
    </Page>
  );
}
