// Records of processing activities (issue 27): the register, filtered to active or archived entries
// and to those that cross the border (or not); recording one, changing one, archiving and
// restoring. Viewers read only. Every write is an audit-chain entry on the server.
import { useState } from "react";
import { api, ok, type Schemas } from "../../api/client.js";
import {
  activityCreateBody,
  activityFormOf,
  activityPatch,
  EMPTY_ACTIVITY_FORM,
  legalBasisLabel,
} from "../../lib/registers.js";
import {
  ConfirmDialog,
  DataTable,
  DateTime,
  ErrorNotice,
  Notice,
  Page,
  useCanWrite,
  useIdempotencyKey,
  WriteGuard,
  type Column,
} from "../../ui/index.js";
import { PagedBody } from "../integrations/ListStatus.js";
import { usePagedList } from "../integrations/usePagedList.js";
import { ActivityFormView } from "./ActivityForm.js";
import "./registers.css";

type Activity = Schemas["ProcessingActivity"];

export default function ProcessingActivitiesPage() {
  const canWrite = useCanWrite();
  const [archived, setArchived] = useState(false);
  const [border, setBorder] = useState<"" | "true" | "false">("");
  const list = usePagedList(
    async (cursor) => {
      const data = await ok(
        api.GET("/api/v1/staff/ropa/activities", {
          params: {
            query: { cursor, archived, ...(border ? { crossesBorder: border === "true" } : {}) },
          },
        }),
      );
      return { items: data.activities, nextCursor: data.nextCursor };
    },
    [archived, border],
  );
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<Activity | null>(null);
  const [archiving, setArchiving] = useState<Activity | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [actionError, setActionError] = useState<unknown>(undefined);
  const idempotency = useIdempotencyKey();

  const restore = async (activity: Activity) => {
    await ok(
      api.POST("/api/v1/staff/ropa/activities/{activityId}/restore", {
        params: { path: { activityId: activity.activityId } },
      }),
    );
    setDone(`“${activity.name}” is active again.`);
    list.reload();
  };

  const columns: Column<Activity>[] = [
    {
      key: "name",
      header: "Activity",
      rowHeader: true,
      render: (a) => (
        <>
          {a.name} <span className="registers-id">{a.activityId}</span>
        </>
      ),
    },
    { key: "purpose", header: "Purpose", render: (a) => a.purpose },
    { key: "basis", header: "Legal basis", render: (a) => legalBasisLabel(a.legalBasis) },
    { key: "data", header: "Data categories", render: (a) => a.dataCategories.join(", ") },
    {
      key: "border",
      header: "Outside India",
      render: (a) => (a.crossesBorder ? `Yes: ${a.destinationCountries.join(", ")}` : "No"),
    },
    {
      key: "recipients",
      header: "Recipients",
      render: (a) =>
        a.recipients.length === 0
          ? "—"
          : a.recipients
              .map((r) => `${r.name} (${r.role.replace("_", " ")}${r.country ? `, ${r.country}` : ""})`)
              .join("; "),
    },
    { key: "storage", header: "Stored", render: (a) => a.storageLocation },
    {
      key: "updated",
      header: archived ? "Archived" : "Updated",
      render: (a) => <DateTime value={a.archivedAt ?? a.updatedAt} />,
    },
  ];
  if (canWrite)
    columns.push({
      key: "actions",
      header: <span className="visually-hidden">Actions</span>,
      align: "end",
      render: (a) =>
        a.archivedAt === null ? (
          <span className="registers-actions">
            <button
              type="button"
              className="button button-small"
              aria-label={`Edit ${a.name}`}
              onClick={() => {
                setCreating(false);
                setEditing(a);
              }}
            >
              Edit
            </button>
            <button
              type="button"
              className="button button-small button-danger"
              aria-label={`Archive ${a.name}`}
              onClick={() => setArchiving(a)}
            >
              Archive
            </button>
          </span>
        ) : (
          <button
            type="button"
            className="button button-small"
            aria-label={`Restore ${a.name}`}
            onClick={() => {
              setActionError(undefined);
              restore(a).catch(setActionError);
            }}
          >
            Restore
          </button>
        ),
    });

  return (
    <Page
      title="Records of processing"
      intro="The organisation's records of processing activities: what personal data is processed, why, on which legal basis, where it is kept, who receives it and whether it leaves India. Archived entries are kept."
    >
      {done ? <Notice tone="success">{done}</Notice> : null}
      <ErrorNotice error={actionError} title="The activity was not restored" />
      <WriteGuard>
        {editing ? (
          <section className="registers-section" aria-labelledby="edit-activity">
            <h2 id="edit-activity">Change “{editing.name}”</h2>
            <ActivityFormView
              key={editing.activityId}
              initial={activityFormOf(editing)}
              label="Change the activity"
              submitLabel="Save changes"
              onCancel={() => setEditing(null)}
              onSubmit={async (form) => {
                const patch = activityPatch(editing, form);
                if (patch)
                  await ok(
                    api.PATCH("/api/v1/staff/ropa/activities/{activityId}", {
                      params: { path: { activityId: editing.activityId } },
                      body: patch,
                    }),
                  );
                setDone(patch ? `“${form.name.trim()}” is saved.` : "Nothing changed.");
                setEditing(null);
                list.reload();
              }}
            />
          </section>
        ) : creating ? (
          <section className="registers-section" aria-labelledby="new-activity">
            <h2 id="new-activity">Record a processing activity</h2>
            <ActivityFormView
              initial={EMPTY_ACTIVITY_FORM}
              label="Record a processing activity"
              submitLabel="Record activity"
              onCancel={() => setCreating(false)}
              onSubmit={async (form) => {
                const activity = await ok(
                  api.POST("/api/v1/staff/ropa/activities", {
                    body: activityCreateBody(form),
                    headers: { "Idempotency-Key": idempotency.key },
                  }),
                );
                idempotency.renew();
                setDone(`“${activity.name}” is recorded as ${activity.activityId}.`);
                setCreating(false);
                if (!archived) list.reload();
              }}
            />
          </section>
        ) : (
          <p>
            <button
              type="button"
              className="button button-primary"
              onClick={() => {
                setDone(null);
                setCreating(true);
              }}
            >
              Record a processing activity
            </button>
          </p>
        )}
      </WriteGuard>
      <form className="registers-filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <div className="field">
          <label htmlFor="ropa-archived">Show</label>
          <select
            id="ropa-archived"
            value={archived ? "archived" : "active"}
            onChange={(e) => setArchived(e.target.value === "archived")}
          >
            <option value="active">Active activities</option>
            <option value="archived">Archived activities</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="ropa-border">Outside India</label>
          <select
            id="ropa-border"
            value={border}
            onChange={(e) => setBorder(e.target.value as "" | "true" | "false")}
          >
            <option value="">Any</option>
            <option value="true">Crosses the border</option>
            <option value="false">Stays in India</option>
          </select>
        </div>
      </form>
      <PagedBody list={list} what="activities">
        <DataTable
          caption={archived ? "Archived processing activities" : "Processing activities"}
          columns={columns}
          rows={list.items}
          rowKey={(a) => a.activityId}
          empty={
            <p className="registers-intro">
              {archived ? "No archived activities." : "No activities recorded yet."}
            </p>
          }
        />
      </PagedBody>
      <ConfirmDialog
        open={archiving !== null}
        title={`Archive “${archiving?.name ?? ""}”?`}
        confirmLabel="Archive activity"
        danger
        onCancel={() => setArchiving(null)}
        onConfirm={async () => {
          if (!archiving) return;
          await ok(
            api.POST("/api/v1/staff/ropa/activities/{activityId}/archive", {
              params: { path: { activityId: archiving.activityId } },
            }),
          );
          setDone(`“${archiving.name}” is archived. It stays on record and can be restored.`);
          setArchiving(null);
          list.reload();
        }}
      >
        <p>
          The entry is kept but leaves the active register and the cross-border transfer list. You can restore
          it later.
        </p>
      </ConfirmDialog>
    </Page>
  );
}
