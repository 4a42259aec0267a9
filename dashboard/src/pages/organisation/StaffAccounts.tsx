// Staff accounts: everyone who may sign in to this organisation's dashboard. An admin creates an
// account (a password given, or one Guard generates and shows once), changes a role, and disables
// or re-enables an account; each is one PATCH or POST, confirmed first when it changes access. The
// API refuses what would lock the organisation out (its own role, the last admin): its 409 message
// is shown in the dialog.
import { useState, type FormEvent } from "react";
import { api, ok, type Schemas } from "../../api/client.js";
import { ROLE_LABELS, type StaffRole } from "../../session/roles.js";
import { useStaff } from "../../session/SessionProvider.js";
import {
  ConfirmDialog,
  DataTable,
  DateTime,
  ErrorNotice,
  Field,
  Loading,
  Notice,
  SecretOnce,
  unclaimedError,
  useApi,
  useIsAdmin,
  WriteGuard,
  type Column,
} from "../../ui/index.js";

type Account = Schemas["StaffAccount"];
const ROLES: StaffRole[] = ["viewer", "dpo", "admin"];

type Action = { kind: "role"; account: Account } | { kind: "disable" | "enable"; account: Account };

export function StaffAccounts() {
  const isAdmin = useIsAdmin();
  const me = useStaff();
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const list = useApi(
    () => ok(api.GET("/api/v1/staff/accounts", { params: { query: cursor ? { cursor } : {} } })),
    [cursor],
  );
  const [action, setAction] = useState<Action | null>(null);
  const [newRole, setNewRole] = useState<StaffRole>("viewer");
  const [notice, setNotice] = useState<string | null>(null);

  const columns: Column<Account>[] = [
    {
      key: "email",
      header: "Email",
      rowHeader: true,
      render: (a) => (
        <>
          {a.email}
          {a.staffId === me.staffId ? <span className="org-muted"> (you)</span> : null}
        </>
      ),
    },
    { key: "role", header: "Role", render: (a) => ROLE_LABELS[a.role] },
    {
      key: "status",
      header: "Status",
      render: (a) =>
        a.disabledAt === null ? (
          "Can sign in"
        ) : (
          <>
            Disabled <DateTime value={a.disabledAt} />
          </>
        ),
    },
    { key: "created", header: "Created", render: (a) => <DateTime value={a.createdAt} /> },
  ];
  if (isAdmin)
    columns.push({
      key: "actions",
      header: "Actions",
      render: (a) => (
        <span className="org-actions">
          <button
            type="button"
            className="button button-small"
            aria-label={`Change role of ${a.email}`}
            onClick={() => {
              setNotice(null);
              setNewRole(a.role);
              setAction({ kind: "role", account: a });
            }}
          >
            Change role
          </button>
          <button
            type="button"
            className={a.disabledAt === null ? "button button-small button-danger" : "button button-small"}
            aria-label={`${a.disabledAt === null ? "Disable" : "Enable"} ${a.email}`}
            onClick={() => {
              setNotice(null);
              setAction({ kind: a.disabledAt === null ? "disable" : "enable", account: a });
            }}
          >
            {a.disabledAt === null ? "Disable" : "Enable"}
          </button>
        </span>
      ),
    });

  const confirm = async () => {
    if (!action) return;
    const { account } = action;
    const body = action.kind === "role" ? { role: newRole } : { disabled: action.kind === "disable" };
    const updated = await ok(
      api.PATCH("/api/v1/staff/accounts/{staffId}", { params: { path: { staffId: account.staffId } }, body }),
    );
    setNotice(
      action.kind === "role"
        ? `${updated.email} is now ${ROLE_LABELS[updated.role]}.`
        : `${updated.email} ${updated.disabledAt === null ? "can sign in again" : "is disabled and was signed out"}.`,
    );
    setAction(null);
    list.reload();
  };

  return (
    <section className="org-section" aria-labelledby="staff-heading">
      <h2 id="staff-heading">Staff accounts</h2>
      <WriteGuard
        admin
        fallback={<p className="read-only-note">Only an admin can add or change staff accounts.</p>}
      >
        <CreateStaffAccount onCreated={list.reload} />
      </WriteGuard>
      {notice ? <Notice tone="success">{notice}</Notice> : null}
      {list.loading && !list.data ? <Loading label="Loading staff accounts…" /> : null}
      <ErrorNotice error={list.error} onRetry={list.reload} />
      {list.data ? (
        <>
          <DataTable
            caption="Staff account list"
            captionHidden
            columns={columns}
            rows={list.data.accounts}
            rowKey={(a) => a.staffId}
          />
          {cursors.length > 1 || list.data.nextCursor ? (
            <nav className="org-paging" aria-label="Staff account pages">
              <button
                type="button"
                className="button"
                disabled={cursors.length === 1}
                onClick={() => setCursors((c) => c.slice(0, -1))}
              >
                Previous
              </button>
              <button
                type="button"
                className="button"
                disabled={!list.data.nextCursor}
                onClick={() => {
                  const next = list.data?.nextCursor;
                  if (next) setCursors((c) => [...c, next]);
                }}
              >
                Next
              </button>
            </nav>
          ) : null}
        </>
      ) : null}
      <ConfirmDialog
        open={action !== null}
        title={
          action?.kind === "role"
            ? `Change the role of ${action.account.email}`
            : action?.kind === "disable"
              ? `Disable ${action.account.email}?`
              : `Enable ${action?.account.email ?? ""}?`
        }
        confirmLabel={
          action?.kind === "role" ? "Change role" : action?.kind === "disable" ? "Disable" : "Enable"
        }
        danger={action?.kind === "disable"}
        onCancel={() => setAction(null)}
        onConfirm={confirm}
      >
        {action?.kind === "role" ? (
          <div className="field">
            <label htmlFor="staff-new-role">New role</label>
            <select
              id="staff-new-role"
              value={newRole}
              onChange={(event) => setNewRole(event.target.value as StaffRole)}
            >
              {ROLES.map((role) => (
                <option key={role} value={role}>
                  {ROLE_LABELS[role]}
                </option>
              ))}
            </select>
          </div>
        ) : action?.kind === "disable" ? (
          <p>They are signed out at once and cannot sign in until an admin enables the account again.</p>
        ) : (
          <p>They can sign in again with their existing password.</p>
        )}
      </ConfirmDialog>
    </section>
  );
}

function CreateStaffAccount({ onCreated }: { onCreated: () => void }) {
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<StaffRole>("viewer");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [created, setCreated] = useState<{ email: string; generatedPassword: string | null } | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    setCreated(null);
    setBusy(true);
    try {
      // No Idempotency-Key here (the contract's choice): a retried create answers 409 on `email`.
      const result = await ok(
        api.POST("/api/v1/staff/accounts", {
          body: { email: email.trim(), role, ...(password === "" ? {} : { password }) },
        }),
      );
      setCreated({ email: result.account.email, generatedPassword: result.generatedPassword });
      setEmail("");
      setPassword("");
      onCreated();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="org-card">
      <h3 className="org-subheading">Add a staff account</h3>
      {created ? (
        created.generatedPassword ? (
          <SecretOnce
            label={`Password for ${created.email}`}
            secret={created.generatedPassword}
            onDone={() => setCreated(null)}
          />
        ) : (
          <Notice tone="success">{created.email} can now sign in with the password you chose.</Notice>
        )
      ) : null}
      <form className="org-create" onSubmit={(event) => void submit(event)} noValidate>
        <Field label="Email" name="email" error={error}>
          <input type="email" autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field
          label="Role"
          name="role"
          error={error}
          hint="Viewers read; DPOs and admins also change things."
        >
          <select value={role} onChange={(e) => setRole(e.target.value as StaffRole)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {ROLE_LABELS[r]}
              </option>
            ))}
          </select>
        </Field>
        <Field
          label="Password (optional)"
          name="password"
          error={error}
          hint="12 characters or more. Leave empty and Guard generates one, shown to you once."
        >
          <input
            type="password"
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </Field>
        <ErrorNotice
          error={unclaimedError(error, ["email", "role", "password"])}
          title="No account was created"
        />
        <button type="submit" className="button button-primary" disabled={busy} aria-busy={busy}>
          {busy ? "Creating…" : "Create account"}
        </button>
      </form>
    </div>
  );
}
