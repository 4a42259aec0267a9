// Enrolled devices (issue 26): the devices whose P-256 keys sign offline capture sessions. The list
// (label, channel, key fingerprint, enrolled, state), enrolling one by its public key, and revoking
// one after a confirmation that asks why (the reason goes on the audit chain). Viewers read only.
import { useState, type FormEvent } from "react";
import { api, ok, type Schemas } from "../../api/client.js";
import { ApiError, withFieldError } from "../../api/errors.js";
import {
  ConfirmDialog,
  DataTable,
  DateTime,
  ErrorNotice,
  Field,
  Notice,
  unclaimedError,
  useCanWrite,
  useIdempotencyKey,
  WriteGuard,
  type Column,
} from "../../ui/index.js";
import { PagedBody, ShowFilter } from "./ListStatus.js";
import { usePagedList } from "./usePagedList.js";

type Device = Schemas["OfflineDevice"];
type Channel = Device["channel"];

export const DEVICE_CHANNELS: { value: Channel; label: string }[] = [
  { value: "agent_app", label: "Agent app" },
  { value: "pos", label: "Point of sale" },
  { value: "qr", label: "QR kiosk" },
  { value: "async_link", label: "Async link" },
  { value: "ivr", label: "IVR" },
];
const channelLabel = (channel: Channel) => DEVICE_CHANNELS.find((c) => c.value === channel)?.label ?? channel;

type DeviceFilter = "" | "active" | "revoked";
const DEVICE_FILTERS: { value: DeviceFilter; label: string }[] = [
  { value: "", label: "All devices" },
  { value: "active", label: "Active only" },
  { value: "revoked", label: "Revoked only" },
];

const FIELDS = ["label", "channel", "publicKeySpki"] as const;

/** The first 16 hex digits, grouped in fours: enough to compare with the device's own display. */
export const shortFingerprint = (fingerprint: string): string =>
  (fingerprint.slice(0, 16).match(/.{1,4}/g) ?? []).join(" ");

/**
 * A pasted key as the contract takes it: the base64 of the DER. A PEM `PUBLIC KEY` block (what
 * `openssl` and many tools print) is unwrapped; any other text is sent as typed (minus surrounding
 * blanks) and the server says what is wrong with it.
 */
export function spkiFromPasted(text: string): string {
  const trimmed = text.trim();
  const pem = /^-----BEGIN PUBLIC KEY-----([\s\S]*?)-----END PUBLIC KEY-----$/.exec(trimmed);
  return pem ? pem[1]!.replace(/\s+/g, "") : trimmed;
}

export function DevicesSection() {
  const canWrite = useCanWrite();
  const [status, setStatus] = useState<DeviceFilter>("");
  const list = usePagedList(
    async (cursor) => {
      const data = await ok(
        api.GET("/api/v1/staff/devices", {
          params: { query: { cursor, ...(status ? { status } : {}) } },
        }),
      );
      return { items: data.devices, nextCursor: data.nextCursor };
    },
    [status],
  );
  const [revoking, setRevoking] = useState<Device | null>(null);
  const [reason, setReason] = useState("");
  const [reasonError, setReasonError] = useState<unknown>(undefined);
  const [done, setDone] = useState<string | null>(null);
  // 404 while the organisation's `offline_agent_capture` capability is off.
  const switchedOff = list.error instanceof ApiError && list.error.status === 404;

  const columns: Column<Device>[] = [
    { key: "label", header: "Label", rowHeader: true, render: (d) => d.label },
    { key: "channel", header: "Channel", render: (d) => channelLabel(d.channel) },
    {
      key: "fingerprint",
      header: "Key fingerprint",
      render: (d) => (
        <code title={d.keyFingerprint} aria-label={`SHA-256 ${d.keyFingerprint}`}>
          {shortFingerprint(d.keyFingerprint)}…
        </code>
      ),
    },
    { key: "enrolled", header: "Enrolled", render: (d) => <DateTime value={d.enrolledAt} /> },
    {
      key: "state",
      header: "State",
      render: (d) =>
        d.revokedAt === null ? (
          <span className="integrations-state integrations-state-ok">Active</span>
        ) : (
          <span className="integrations-state integrations-state-off" title={d.revocationReason ?? undefined}>
            Revoked <DateTime value={d.revokedAt} />
          </span>
        ),
    },
  ];
  if (canWrite)
    columns.push({
      key: "actions",
      header: <span className="visually-hidden">Actions</span>,
      align: "end",
      render: (d) =>
        d.revokedAt === null ? (
          <button
            type="button"
            className="button button-small button-danger"
            aria-label={`Revoke ${d.label}`}
            onClick={() => {
              setReason("");
              setReasonError(undefined);
              setRevoking(d);
            }}
          >
            Revoke
          </button>
        ) : null,
    });

  return (
    <section className="integrations-section" aria-labelledby="devices">
      <h2 id="devices">Capture devices</h2>
      <p className="integrations-intro">
        Tablets, point-of-sale terminals and kiosks that capture consent offline sign each session with a
        P-256 key held on the device. Enrol the device&apos;s public key here; Guard then accepts only
        sessions it signed, until you revoke it.
      </p>
      {done ? <Notice tone="success">{done}</Notice> : null}
      {switchedOff ? (
        <Notice tone="info">
          Offline capture is switched off for this organisation (capability <code>offline_agent_capture</code>
          ). An admin can switch it on on the Organisation page.
        </Notice>
      ) : (
        <>
          <WriteGuard>
            <EnrolDeviceForm
              onEnrolled={(device) => {
                setDone(
                  `“${device.label}” is enrolled as ${device.deviceId}. Check that the device shows the key fingerprint ${shortFingerprint(device.keyFingerprint)}….`,
                );
                list.reload();
              }}
            />
          </WriteGuard>
          <ShowFilter
            value={status}
            onChange={setStatus}
            options={DEVICE_FILTERS}
            label="Which devices to show"
          />
          <PagedBody list={list} what="devices">
            <DataTable
              caption="Enrolled devices"
              captionHidden
              columns={columns}
              rows={list.items}
              rowKey={(d) => d.deviceId}
              empty={<p className="integrations-empty">No devices enrolled yet.</p>}
            />
          </PagedBody>
        </>
      )}
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke the device “${revoking?.label ?? ""}”?`}
        confirmLabel="Revoke device"
        danger
        onCancel={() => setRevoking(null)}
        onConfirm={async () => {
          if (!revoking) return;
          const written = await withFieldError(
            "reason",
            () =>
              ok(
                api.POST("/api/v1/staff/devices/{deviceId}/revoke", {
                  params: { path: { deviceId: revoking.deviceId } },
                  body: { reason: reason.trim() },
                }),
              ),
            setReasonError,
          );
          if (!written) return;
          setDone(`“${revoking.label}” is revoked: sessions it signs are quarantined from now on.`);
          setRevoking(null);
          list.reload();
        }}
      >
        <p>
          Sessions signed by this device are quarantined from now on, including ones captured before and not
          yet synced. Sessions already accepted stay valid. This cannot be undone: a replaced device is
          enrolled with a new key.
        </p>
        <Field
          label="Reason"
          name="reason"
          error={reasonError}
          hint="Lost, stolen, retired… Kept in the audit trail."
        >
          <textarea value={reason} onChange={(e) => setReason(e.target.value)} maxLength={500} rows={2} />
        </Field>
      </ConfirmDialog>
    </section>
  );
}

function EnrolDeviceForm({ onEnrolled }: { onEnrolled: (device: Device) => void }) {
  const [label, setLabel] = useState("");
  const [channel, setChannel] = useState<Channel>("agent_app");
  const [publicKey, setPublicKey] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const idempotency = useIdempotencyKey();
  const changed =
    <T,>(set: (value: T) => void) =>
    (value: T) => {
      set(value);
      // Another request from here on: a retry of the same one keeps the key.
      idempotency.renew();
    };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const device = await ok(
        api.POST("/api/v1/staff/devices", {
          body: { label: label.trim(), channel, publicKeySpki: spkiFromPasted(publicKey) },
          headers: { "Idempotency-Key": idempotency.key },
        }),
      );
      idempotency.renew();
      setLabel("");
      setPublicKey("");
      onEnrolled(device);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="integrations-form" onSubmit={(e) => void submit(e)} aria-label="Enrol a device">
      <Field
        label="Device label"
        name="label"
        error={error}
        hint="Where it is or who carries it, e.g. “Pune branch, tablet 2”."
      >
        <input
          value={label}
          onChange={(e) => changed(setLabel)(e.target.value)}
          maxLength={200}
          autoComplete="off"
        />
      </Field>
      <Field label="Channel" name="channel" error={error}>
        <select value={channel} onChange={(e) => changed(setChannel)(e.target.value as Channel)}>
          {DEVICE_CHANNELS.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      </Field>
      <Field
        label="Public key"
        name="publicKeySpki"
        error={error}
        hint="The device's P-256 public key: base64 of its SubjectPublicKeyInfo (Android publicKey.encoded, CryptoKit derRepresentation), or a PEM PUBLIC KEY block."
      >
        <textarea
          value={publicKey}
          onChange={(e) => changed(setPublicKey)(e.target.value)}
          rows={3}
          spellCheck={false}
          autoComplete="off"
          className="integrations-key"
        />
      </Field>
      <ErrorNotice error={unclaimedError(error, FIELDS)} title="The device was not enrolled" />
      <button type="submit" className="button button-primary" disabled={busy} aria-busy={busy}>
        {busy ? "Enrolling…" : "Enrol device"}
      </button>
    </form>
  );
}
