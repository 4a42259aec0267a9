// The Integrations page in a real Chromium against a real Guard (issue 24, page 2): a DPO creates a
// service API key on the page, the test uses that key against the API (accepted), revokes it on the
// page and sees the same call refused; registers a webhook endpoint and sees its secret once, reads
// a delivery's payload and re-sends it, disables and deletes the endpoint; registers a domain (an
// invalid name first: the API's message at the field) and sees the snippet serving it; a viewer
// reads the page with no write controls. axe-core and a screenshot for both roles.
import assert from "node:assert/strict";
import { createHash, generateKeyPairSync } from "node:crypto";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { createApiKey } from "../../../server/src/accounts/api-keys.js";
import { enqueueEvent } from "../../../server/src/webhooks/outbox.js";
import {
  browserSkip,
  checkAccessibility,
  launchChromium,
  newUser,
  screenshot,
  signIn,
  type User,
} from "./support/browser.js";
import { startGuard, type GuardUnderTest } from "./support/guard.js";

describe("dashboard Integrations page in Chromium", { skip: browserSkip }, () => {
  let guard: GuardUnderTest;
  let browser: Browser;
  let dpo: User;
  const users: User[] = [];

  before(async () => {
    guard = await startGuard();
    browser = await launchChromium();
    dpo = await newUser(browser);
    users.push(dpo);
    await signIn(dpo.page, guard, "dpo", "/integrations");
    await dpo.page.getByRole("heading", { level: 1, name: "Integrations" }).waitFor();
  });
  after(async () => {
    for (const u of users) await u.close().catch(() => undefined);
    await browser?.close();
    await guard?.close();
  });

  /** A service-key call the contract accepts from any active key of the organisation. */
  const brokerToken = (key: string) =>
    fetch(`${guard.origin}/api/v1/auth/broker-token`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ externalId: "integrations-test-user" }),
    });

  const section = (page: Page, name: string) => page.getByRole("region", { name, exact: true });

  test("a key created on the page works against the API until it is revoked on the page", async () => {
    const { page, problems } = dpo;
    const keys = section(page, "Service API keys");
    // The seeded key (created outside a staff session) is listed with its prefix.
    await keys.getByRole("cell", { name: "Outside the dashboard" }).waitFor();

    await keys.getByLabel("Key name").fill("Shop backend");
    await keys.getByRole("button", { name: "Create API key" }).click();
    const secret = keys.getByLabel("API key “Shop backend” value");
    await secret.waitFor();
    assert.ok(await keys.getByText("Shown once.").isVisible());
    assert.ok(await keys.getByRole("button", { name: "Copy api key “shop backend”" }).isVisible());
    const key = (await secret.textContent())!.trim();
    assert.match(key, /^gk_(live|test)_/);
    // The new row, with the key's prefix and the DPO as its creator.
    const row = keys.getByRole("row", { name: /Shop backend/ });
    await row.waitFor();
    assert.ok(await row.getByText(key.slice(0, 16)).isVisible());
    assert.ok(await row.getByText(guard.seeded.staff.dpo.email).isVisible());
    assert.ok(await row.getByText("Never").isVisible());

    const accepted = await brokerToken(key);
    assert.equal(accepted.status, 201, await accepted.text());

    await keys.getByRole("button", { name: "I have stored it" }).click();
    assert.equal(await secret.count(), 0, "the key is not shown again");

    await row.getByRole("button", { name: "Revoke Shop backend" }).click();
    const dialog = page.getByRole("dialog", { name: "Revoke the key “Shop backend”?" });
    await dialog.waitFor();
    await dialog.getByRole("button", { name: "Revoke key" }).click();
    await keys.getByText("The key “Shop backend” is revoked").waitFor();
    await row.getByText("Revoked").waitFor();
    // Used once before the revocation: the list says when, instead of "Never".
    assert.equal(await row.getByText("Never").count(), 0);

    const refused = await brokerToken(key);
    assert.equal(refused.status, 401);
    assert.deepEqual(problems, []);
  });

  test("a webhook endpoint: bad URL at its field, secret once, a delivery's payload and re-send, disable, delete", async () => {
    const { page, problems } = dpo;
    const hooks = section(page, "Webhook endpoints");
    await hooks.getByText("No webhook endpoints yet.").waitFor();

    await hooks.getByLabel("Endpoint URL").fill("ftp://127.0.0.1/hook");
    await hooks.getByRole("button", { name: "Register endpoint" }).click();
    const urlInput = hooks.getByLabel("Endpoint URL");
    await hooks.locator(".field-error").first().waitFor();
    assert.equal(await urlInput.getAttribute("aria-invalid"), "true");
    assert.match((await hooks.locator(".field-error").first().textContent()) ?? "", /url/i);

    const url = "http://127.0.0.1:9/guard-hook";
    await urlInput.fill(url);
    assert.ok(await hooks.getByRole("checkbox", { name: "consent.given" }).isChecked());
    await hooks.getByRole("checkbox", { name: "dsr.created" }).check();
    await hooks.getByRole("button", { name: "Register endpoint" }).click();
    const secret = hooks.getByLabel(`Signing secret for ${url} value`);
    await secret.waitFor();
    assert.match((await secret.textContent()) ?? "", /^whsec_/);
    await hooks.getByRole("button", { name: "I have stored it" }).click();
    assert.equal(await secret.count(), 0, "the secret is not shown again");
    // The secret comes with the POST's answer; the row with the list reloaded after it.
    const row = hooks.getByRole("row", { name: new RegExp(url) });
    await row.waitFor();
    assert.ok(await row.getByText("consent.given, consent.withdrawn, dsr.created").isVisible());

    // An event after registration is queued for the endpoint (no worker runs in this harness, so it waits).
    await enqueueEvent(
      guard.t.db,
      {
        organizationId: guard.seeded.org.organizationId,
        eventType: "dsr.created",
        payload: { requestId: "dsr_browser_test", type: "access" },
      },
      guard.t.clock.now(),
    );
    await row.getByRole("button", { name: `Deliveries to ${url}` }).click();
    const deliveries = hooks.getByRole("region", { name: `Deliveries to ${url}` });
    const delivery = deliveries.getByRole("row", { name: /dsr\.created/ });
    await delivery.waitFor();
    assert.ok(await delivery.getByText("Pending").isVisible());
    await delivery.getByRole("button", { name: /^Payload of dsr\.created/ }).click();
    const payload = hooks.getByLabel("Payload JSON");
    await payload.waitFor();
    assert.deepEqual(JSON.parse((await payload.textContent()) ?? ""), {
      requestId: "dsr_browser_test",
      type: "access",
    });
    await delivery.getByRole("button", { name: /^Re-send dsr\.created/ }).click();
    await hooks.getByText("The dsr.created delivery is queued to be sent again").waitFor();
    await checkAccessibility(page, "Integrations with a delivery open (dpo)");

    await row.getByRole("button", { name: `Disable ${url}` }).click();
    await row.getByText("Disabled", { exact: true }).waitFor();
    await row.getByRole("button", { name: `Enable ${url}` }).waitFor();

    await row.getByRole("button", { name: `Delete ${url}` }).click();
    const dialog = page.getByRole("dialog", { name: "Delete this webhook endpoint?" });
    await dialog.getByRole("button", { name: "Delete endpoint" }).click();
    await hooks.getByText(`${url} is deleted`).waitFor();
    await hooks.getByText("No webhook endpoints yet.").waitFor();
    await hooks.getByLabel("Show deleted endpoints").check();
    const deleted = hooks.getByRole("row", { name: new RegExp(url) });
    await deleted.getByText("Deleted").waitFor();
    // Deleting cancelled the queued delivery; a deleted endpoint's deliveries stay readable, not re-sendable.
    await deleted.getByRole("button", { name: `Deliveries to ${url}` }).click();
    await delivery.getByText("Cancelled").waitFor();
    assert.equal(await delivery.getByRole("button", { name: /^Re-send/ }).count(), 0);
    assert.deepEqual(problems, []);
  });

  test("registering a domain: the API's message at the field, then the snippet serves the valid one", async () => {
    const { page, problems } = dpo;
    const domains = section(page, "Registered domains");
    const snippet = section(page, "Banner snippet");
    await snippet.getByText("No domains are registered yet").waitFor();
    const pasted = (await snippet.getByLabel("Banner snippet").textContent()) ?? "";
    assert.match(pasted, /<script /);
    assert.match(pasted, new RegExp(`data-org="${guard.seeded.org.slug}"`));
    assert.match(pasted, /integrity="sha384-/);
    assert.ok(await snippet.getByRole("button", { name: "Copy snippet" }).isVisible());

    const input = domains.getByLabel("Domain", { exact: true });
    await input.fill("shop.example.com:8080");
    await domains.getByRole("button", { name: "Register domain" }).click();
    await domains.getByText("domain is not a hostname").waitFor();
    assert.equal(await input.getAttribute("aria-invalid"), "true");

    await input.fill("shop.example.com");
    await domains.getByRole("button", { name: "Register domain" }).click();
    await domains.getByText("shop.example.com is registered.").waitFor();
    assert.equal(await input.getAttribute("aria-invalid"), null);
    await domains.getByRole("rowheader", { name: "shop.example.com" }).waitFor();
    await snippet
      .getByRole("list", { name: "Domains the snippet serves" })
      .getByText("shop.example.com")
      .waitFor();

    const apps = section(page, "Registered apps");
    await apps.getByLabel("App id").fill("com.example.health");
    await apps.getByRole("button", { name: "Register app" }).click();
    await apps.getByRole("rowheader", { name: "com.example.health" }).waitFor();
    await apps.getByRole("button", { name: "Remove com.example.health" }).click();
    await page
      .getByRole("dialog", { name: "Remove the app com.example.health?" })
      .getByRole("button", { name: "Remove app" })
      .click();
    await apps.getByText("com.example.health is removed.").waitFor();
    await apps.getByText("No apps registered yet.").waitFor();

    await checkAccessibility(page, "Integrations (dpo)");
    await screenshot(page, "integrations");
    assert.deepEqual(problems, []);
  });

  test("a capture device: a bad key at its field, enrolled with its fingerprint, revoked with a reason", async () => {
    const { page, problems } = dpo;
    const devices = section(page, "Capture devices");
    await devices.getByText("No devices enrolled yet.").waitFor();

    // A secp256k1 key: the server's reason, at the key's field.
    const k1 = generateKeyPairSync("ec", { namedCurve: "secp256k1" })
      .publicKey.export({ type: "spki", format: "der" })
      .toString("base64");
    await devices.getByLabel("Device label").fill("Ward 4 tablet");
    await devices.getByLabel("Channel").selectOption("agent_app");
    const keyInput = devices.getByLabel("Public key");
    await keyInput.fill(k1);
    await devices.getByRole("button", { name: "Enrol device" }).click();
    await devices.getByText(/secp256k1, not P-256/).waitFor();
    assert.equal(await keyInput.getAttribute("aria-invalid"), "true");

    // A P-256 key pasted as PEM is unwrapped and enrolled.
    const { publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
    const der = publicKey.export({ type: "spki", format: "der" });
    const fingerprint = createHash("sha256").update(der).digest("hex");
    await keyInput.fill(publicKey.export({ type: "spki", format: "pem" }).toString());
    await devices.getByRole("button", { name: "Enrol device" }).click();
    await devices.getByText("“Ward 4 tablet” is enrolled as dev_").waitFor();
    assert.equal(await keyInput.inputValue(), "", "the form is cleared");
    const row = devices.getByRole("row", { name: /Ward 4 tablet/ });
    await row.getByText("Active").waitFor();
    const shown = fingerprint.slice(0, 16).replace(/(.{4})(?=.)/g, "$1 ");
    assert.ok(await row.getByText(`${shown}…`).isVisible());
    assert.ok(await row.getByText("Agent app").isVisible());

    // The API has it, with the key as enrolled.
    const listed = await guard.t.request({
      method: "GET",
      url: "/api/v1/staff/devices",
      headers: { authorization: `Bearer ${guard.seeded.apiKey}` },
    });
    const [device] = (listed.json() as { devices: { deviceId: string; publicKeySpki: string }[] }).devices;
    assert.equal(device?.publicKeySpki, der.toString("base64"));

    // Revoking asks why; an empty reason is refused at its field, then the device is revoked.
    await row.getByRole("button", { name: "Revoke Ward 4 tablet" }).click();
    const dialog = page.getByRole("dialog", { name: "Revoke the device “Ward 4 tablet”?" });
    await dialog.waitFor();
    await dialog.getByRole("button", { name: "Revoke device" }).click();
    await dialog.locator(".field-error").waitFor();
    assert.equal(await dialog.getByLabel("Reason").getAttribute("aria-invalid"), "true");
    await dialog.getByLabel("Reason").fill("Tablet lost on the ward");
    await dialog.getByRole("button", { name: "Revoke device" }).click();
    await devices.getByText("“Ward 4 tablet” is revoked").waitFor();
    await row.getByText("Revoked").waitFor();
    assert.equal(await row.getByRole("button", { name: "Revoke Ward 4 tablet" }).count(), 0);

    // The filter shows active devices only: none are left.
    await devices.getByLabel("Which devices to show").selectOption("active");
    await devices.getByText("No devices enrolled yet.").waitFor();
    await devices.getByLabel("Which devices to show").selectOption("");
    await row.getByText("Revoked").waitFor();
    await checkAccessibility(page, "Integrations with a device (dpo)");
    assert.deepEqual(problems, []);
  });

  test("a viewer reads every section (paging through the keys) but gets no write controls", async () => {
    const viewer = await newUser(browser);
    users.push(viewer);
    const { page, problems } = viewer;
    // More keys than one page (the contract's default limit is 100): the rest come with "Load more".
    for (let i = 0; i < 100; i++)
      await createApiKey(
        guard.t.db,
        { organizationId: guard.seeded.org.organizationId, name: `bulk ${i}`, createdBy: null },
        guard.t.clock.now() + 1 + i,
      );
    await signIn(page, guard, "viewer", "/integrations");
    await page.getByRole("heading", { level: 1, name: "Integrations" }).waitFor();
    const keys = section(page, "Service API keys");
    const keyRows = keys.getByRole("table").getByRole("row");
    await keys.getByRole("rowheader", { name: "bulk 99" }).waitFor();
    assert.equal(await keyRows.count(), 1 + 100, "a header row and the first page");
    await keys.getByRole("button", { name: "Load more API keys" }).click();
    await keys
      .getByRole("row", { name: /Shop backend/ })
      .getByText("Revoked")
      .waitFor();
    assert.equal(await keyRows.count(), 1 + 102, "every key once");
    assert.equal(await keys.getByRole("button", { name: "Load more API keys" }).count(), 0, "the last page");
    await section(page, "Registered domains").getByRole("rowheader", { name: "shop.example.com" }).waitFor();
    // Loaded on its own, not with the domains: waited for, not checked at once.
    await section(page, "Banner snippet").getByLabel("Banner snippet").waitFor();
    // The devices enrolled by the DPO's test are listed, read-only.
    const devices = section(page, "Capture devices");
    await devices.getByRole("rowheader", { name: "Ward 4 tablet" }).waitFor();
    assert.equal(await page.getByText(/can read this page but not change it/).count(), 5);
    for (const name of [
      "Create API key",
      "Register endpoint",
      "Register domain",
      "Register app",
      "Enrol device",
    ])
      assert.equal(await page.getByRole("button", { name }).count(), 0, name);
    assert.equal(
      await page.getByRole("button", { name: /^(Revoke|Remove|Delete|Disable|Enable) / }).count(),
      0,
    );
    await checkAccessibility(page, "Integrations (viewer)");
    await screenshot(page, "integrations-viewer");
    assert.deepEqual(problems, []);
  });
});
