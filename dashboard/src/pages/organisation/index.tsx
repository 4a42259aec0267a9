// Organisation (issue 24, page 8): the organisation's consent and Consent Gate settings, its
// capabilities (admin only) and its staff accounts (admin creates, changes roles, disables). Every
// staff role reads all of it; what a role may not change is shown disabled or hidden, with why.
import type { PageProps } from "../../routes.js";
import { Page } from "../../ui/index.js";
import { Capabilities } from "./Capabilities.js";
import { OrganisationSettings } from "./OrganisationSettings.js";
import { StaffAccounts } from "./StaffAccounts.js";
import "./organisation.css";

export default function OrganisationPage(_props: PageProps) {
  return (
    <Page
      title="Organisation"
      intro="How Guard behaves for your organisation, and who may sign in to run it."
    >
      <OrganisationSettings />
      <Capabilities />
      <StaffAccounts />
    </Page>
  );
}
