// The organisation's capabilities: each on or off, with what it does. Only an admin switches them
// (one PUT naming just that capability, so two admins do not undo each other); switching one off
// is confirmed first, because the operations it gates start answering 404 at once. The PUT's answer
// (every capability as now in force) replaces the list, with the notice.
import { useState } from "react";
import { api, ok, type Schemas } from "../../api/client.js";
import { ConfirmDialog, ErrorNotice, Loading, Notice, useApi, useIsAdmin } from "../../ui/index.js";

type Capability = Schemas["Capability"];

export function Capabilities() {
  const isAdmin = useIsAdmin();
  const list = useApi(() => ok(api.GET("/api/v1/staff/capabilities")), []);
  const [pending, setPending] = useState<Capability | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [notice, setNotice] = useState<string | null>(null);

  const apply = async (capability: Capability, enabled: boolean) => {
    const now = await ok(
      api.PUT("/api/v1/staff/capabilities", { body: { capabilities: { [capability.name]: enabled } } }),
    );
    // The answer is every capability as now in force: shown with the notice, so the switch never
    // still shows the old state (and a second click on it never acts on that old state).
    list.replace(now);
    setNotice(`${capability.name} is now ${enabled ? "on" : "off"}.`);
  };

  const toggle = (capability: Capability) => {
    setError(undefined);
    setNotice(null);
    if (capability.enabled) setPending(capability);
    else apply(capability, true).catch(setError);
  };

  return (
    <section className="org-section" aria-labelledby="capabilities-heading">
      <h2 id="capabilities-heading">Capabilities</h2>
      <p className={isAdmin ? "org-muted" : "read-only-note"} id="capabilities-note">
        {isAdmin
          ? "Switch off what your organisation does not use: its routes then answer 404 as if absent."
          : "Only an admin can switch capabilities on or off; your role can see them."}
      </p>
      {list.loading && !list.data ? <Loading label="Loading capabilities…" /> : null}
      <ErrorNotice error={list.error} onRetry={list.reload} />
      <ErrorNotice error={error} title="The capability was not changed" />
      {notice ? <Notice tone="success">{notice}</Notice> : null}
      {list.data ? (
        <ul className="org-capabilities">
          {list.data.capabilities.map((capability) => (
            <li key={capability.name} className="org-capability">
              <div className="org-check">
                <input
                  type="checkbox"
                  role="switch"
                  id={`capability-${capability.name}`}
                  checked={capability.enabled}
                  disabled={!isAdmin}
                  aria-describedby={`capability-${capability.name}-about capabilities-note`}
                  onChange={() => toggle(capability)}
                />
                <label htmlFor={`capability-${capability.name}`}>
                  <code>{capability.name}</code> {capability.enabled ? "(on)" : "(off)"}
                </label>
              </div>
              <p className="field-hint" id={`capability-${capability.name}-about`}>
                {capability.description}
                {capability.operations.length > 0 ? ` Gates: ${capability.operations.join(", ")}.` : ""}
              </p>
            </li>
          ))}
        </ul>
      ) : null}
      <ConfirmDialog
        open={pending !== null}
        title={`Switch ${pending?.name ?? ""} off?`}
        confirmLabel="Switch off"
        danger
        onCancel={() => setPending(null)}
        onConfirm={async () => {
          if (!pending) return;
          await apply(pending, false);
          setPending(null);
        }}
      >
        <p>
          From the next request, on every instance: {pending?.description}
          {pending && pending.operations.length > 0
            ? ` These operations will answer 404: ${pending.operations.join(", ")}.`
            : ""}
        </p>
      </ConfirmDialog>
    </section>
  );
}
