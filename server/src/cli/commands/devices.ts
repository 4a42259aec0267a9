// guard devices enroll | list | revoke: the devices that sign offline capture sessions, with the same
// rules as the staff routes (offline/devices/devices.ts); changes are recorded with the actor
// `system` / `cli:<OS user>`. Like the other operator commands they do not consult capabilities.
import fs from "node:fs";
import type { Command } from "commander";
import { oneOf } from "../arguments.js";
import { everyItem } from "../paging.js";
import {
  deviceToWire,
  DEVICE_CHANNELS,
  DEVICE_STATUSES,
  enrolDevice,
  pageDevices,
  revokeDevice,
  type DeviceStatus,
} from "../../offline/devices/devices.js";
import { cliActor } from "../context.js";
import { CliError, operatorPath } from "../io.js";
import type { RunAction } from "../main.js";

const PEM = /^-----BEGIN PUBLIC KEY-----([\s\S]*?)-----END PUBLIC KEY-----$/;

/**
 * The key text to enrol: the argument itself (standard base64 of the SPKI DER, checked strictly),
 * or with `@path` the file's content, either that base64 (line breaks and surrounding blanks
 * ignored, as a file saved by hand has them) or a PEM `PUBLIC KEY` block, which is that base64
 * wrapped at 64 characters. An `EC PUBLIC KEY` or certificate is not a PUBLIC KEY block and is
 * passed on as text, so the rules refuse it with their message.
 */
export function publicKeyArgument(value: string): string {
  if (!value.startsWith("@")) return value;
  const file = value.slice(1);
  let content: string;
  try {
    content = fs.readFileSync(operatorPath(file), "utf8");
  } catch (error) {
    throw new CliError(`cannot read the public key file ${file}: ${(error as Error).message}`);
  }
  const trimmed = content.trim();
  const pem = PEM.exec(trimmed);
  return (pem ? pem[1]! : trimmed).replace(/\s+/g, "");
}

export function registerDeviceCommands(program: Command, run: RunAction): void {
  const devices = program.command("devices").description("devices enrolled to sign offline capture sessions");

  devices
    .command("enroll")
    .description("enrol a device's P-256 public key; prints the device with its new id and key fingerprint")
    .requiredOption("--org <slug>", "organisation slug")
    .requiredOption("--label <label>", "where the device is or who carries it (1-200 characters)")
    .requiredOption("--channel <channel>", `one of ${DEVICE_CHANNELS.join(", ")}`, oneOf(DEVICE_CHANNELS))
    .requiredOption(
      "--public-key <key>",
      "standard base64 of the SPKI DER, or @file holding that base64 or a PEM PUBLIC KEY block",
    )
    .action(
      run(async (ctx, options: { org: string; label: string; channel: string; publicKey: string }) => {
        const publicKeySpki = publicKeyArgument(options.publicKey);
        const organization = await ctx.organization(options.org);
        const device = await (
          await ctx.db()
        ).transaction((tx) =>
          enrolDevice(
            tx,
            {
              organizationId: organization.organizationId,
              label: options.label,
              channel: options.channel,
              publicKeySpki,
              actor: cliActor(),
            },
            Date.now(),
          ),
        );
        ctx.out.result(deviceToWire(device));
        ctx.out.note(
          `Enrolled ${device.deviceId}; check the key fingerprint ${device.keyFingerprint} against the device.`,
        );
      }),
    );

  devices
    .command("list")
    .description("list the organisation's devices, newest enrolment first")
    .requiredOption("--org <slug>", "organisation slug")
    .option("--status <status>", `one of ${DEVICE_STATUSES.join(", ")}`, oneOf(DEVICE_STATUSES))
    .action(
      run(async (ctx, options: { org: string; status?: DeviceStatus }) => {
        const organization = await ctx.organization(options.org);
        const db = await ctx.db();
        const found = await everyItem((request) =>
          pageDevices(db, organization.organizationId, { ...request, status: options.status }),
        );
        ctx.out.result({ devices: found.map(deviceToWire) });
      }),
    );

  devices
    .command("revoke")
    .description("revoke a device: sessions it signs are quarantined from now on (device_revoked)")
    .argument("<deviceId>", "the device id (dev_…)")
    .requiredOption("--org <slug>", "organisation slug")
    .requiredOption("--reason <reason>", "why (lost, stolen, retired…), kept on the audit chain")
    .action(
      run(async (ctx, deviceId: string, options: { org: string; reason: string }) => {
        const organization = await ctx.organization(options.org);
        const device = await (
          await ctx.db()
        ).transaction((tx) =>
          revokeDevice(
            tx,
            {
              organizationId: organization.organizationId,
              deviceId,
              reason: options.reason,
              actor: cliActor(),
            },
            Date.now(),
          ),
        );
        ctx.out.result(deviceToWire(device));
      }),
    );
}
