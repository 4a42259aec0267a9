// Banner and widget configuration through the staff routes: registered domains and apps (strict
// matching), validated banner settings per scope with configVersion rules, domain groups and the
// widget's one config call.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { parseNoticeDraft, publishNotice } from "../../src/notices/notices.js";
import { assertApiError } from "../support/api-error.js";
import { seedOrganization, signIn, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";
import { ok, staffClient } from "../support/staff-client.js";

const TEXTS = {
  title: "Notice",
  body: "Body",
  withdrawal: "Withdraw in Settings.",
  rights: "Ask us for your data.",
  complaint: "Complain to the Board.",
};

type BannerConfig = { bannerSettings?: Record<string, unknown>; configVersion: number };
type Scope = {
  scope: string;
  domain?: string;
  appId?: string;
  bannerSettings: unknown;
  configVersion: number;
};
type Group = {
  domainGroupId: string;
  name: string;
  domains: string[];
  noticeId: string | null;
  bannerSettings: Record<string, unknown> | null;
  configVersion: number;
};
type Widget = {
  organizationId: string;
  noticeId: string;
  noticeVersion: number;
  notice: { content: Record<string, { title: string }>; itemized: unknown[]; languages: string[] };
  bannerSettings?: Record<string, unknown>;
  configVersion?: number;
};

describe("banner and widget configuration", () => {
  let t: TestApp;
  let staff: ReturnType<typeof staffClient>;
  before(async () => {
    t = await startTestApp();
    staff = staffClient(t);
  });
  after(() => t.close());

  const dpo = (
    seeded: SeededOrg,
    method: "GET" | "POST" | "PUT" | "DELETE",
    url: string,
    payload?: unknown,
  ) => staff(seeded, "dpo", method, url, payload);
  const banner = (seeded: SeededOrg, query = "") =>
    t.request({ method: "GET", url: `/api/v1/org/${seeded.org.organizationId}/banner-config${query}` });
  const widget = (id: string, domain: string) =>
    t.request({ method: "GET", url: `/api/v1/widget/config?id=${id}&domain=${encodeURIComponent(domain)}` });
  const publish = async (seeded: SeededOrg, key: string, title: string) =>
    publishNotice(
      t.db,
      seeded.org.organizationId,
      parseNoticeDraft({
        key,
        itemized: [{ purpose: "Account", personalDataDescription: "Email" }],
        content: { en: { ...TEXTS, title } },
      }),
      t.clock.now(),
    );

  test("domains and apps: registering is idempotent and normalised; removing makes the banner 404", async () => {
    const seeded = await seedOrganization(t);
    const first = ok<{ domain: string; createdAt: number }>(
      await dpo(seeded, "PUT", "/api/v1/staff/domains/Shop.Example.COM"),
    );
    assert.deepEqual(first, {
      domain: "shop.example.com",
      createdAt: t.clock.now(),
      domainGroupIds: [],
      hasOwnBannerSettings: false,
    });
    t.clock.advance(1000);
    assert.deepEqual(
      ok(await dpo(seeded, "PUT", "/api/v1/staff/domains/shop.example.com")),
      first,
      "a repeat changes nothing",
    );
    ok(await dpo(seeded, "PUT", "/api/v1/staff/domains/blog.example.com"));
    const listed = ok<{ domains: { domain: string }[] }>(
      await staff(seeded, "viewer", "GET", "/api/v1/staff/domains"),
    );
    assert.deepEqual(
      listed.domains.map((d) => d.domain),
      ["blog.example.com", "shop.example.com"],
    );
    for (const bad of ["shop.example.com:443", "-bad.example.com", "exa_mple.com"]) {
      assertApiError(
        await dpo(seeded, "PUT", `/api/v1/staff/domains/${encodeURIComponent(bad)}`),
        400,
        "VALIDATION_ERROR",
        {
          field: "domain",
        },
      );
    }
    assertApiError(
      await staff(seeded, "viewer", "PUT", "/api/v1/staff/domains/x.example.com"),
      403,
      "FORBIDDEN",
    );

    assert.equal(ok<BannerConfig>(await banner(seeded, "?domain=shop.example.com")).configVersion, 1);
    assert.deepEqual(ok(await dpo(seeded, "DELETE", "/api/v1/staff/domains/shop.example.com")), {
      removed: true,
    });
    assert.deepEqual(ok(await dpo(seeded, "DELETE", "/api/v1/staff/domains/shop.example.com")), {
      removed: false,
    });
    assertApiError(await banner(seeded, "?domain=shop.example.com"), 404, "NOT_FOUND");

    const app = ok<{ appId: string }>(await dpo(seeded, "PUT", "/api/v1/staff/apps/com.example.health"));
    assert.equal(app.appId, "com.example.health");
    assert.equal(ok<BannerConfig>(await banner(seeded, "?appId=com.example.health")).configVersion, 1);
    assertApiError(await banner(seeded, "?appId=COM.EXAMPLE.HEALTH"), 404, "NOT_FOUND");
    assertApiError(await dpo(seeded, "PUT", "/api/v1/staff/apps/com%20example"), 400, "VALIDATION_ERROR", {
      field: "appId",
    });
    assert.deepEqual(ok(await dpo(seeded, "DELETE", "/api/v1/staff/apps/com.example.health")), {
      removed: true,
    });
    assertApiError(await banner(seeded, "?appId=com.example.health"), 404, "NOT_FOUND");
  });

  test("banner settings are validated against the schema; unknown keys and languages are refused by name", async () => {
    const seeded = await seedOrganization(t);
    const save = (bannerSettings: unknown) =>
      dpo(seeded, "PUT", "/api/v1/staff/banner-settings/default", { bannerSettings });
    const cases: [unknown, string][] = [
      [{ colour: "#fff" }, "bannerSettings.colour"],
      [{ colors: { primary: "red" } }, "bannerSettings.colors.primary"],
      [{ colors: { accent: "#fff" } }, "bannerSettings.colors.accent"],
      [{ position: "middle" }, "bannerSettings.position"],
      [{ borderRadius: 65 }, "bannerSettings.borderRadius"],
      [{ borderRadius: "4px" }, "bannerSettings.borderRadius"],
      [{ fontFamily: "Arial; } body { display: none" }, "bannerSettings.fontFamily"],
      [{ logoUrl: "http://example.com/logo.png" }, "bannerSettings.logoUrl"],
      [{ logoUrl: "javascript:alert(1)" }, "bannerSettings.logoUrl"],
      [{ defaultLanguage: "fr" }, "bannerSettings.defaultLanguage"],
      [{ texts: { fr: { title: "Avis" } } }, "bannerSettings.texts.fr"],
      [{ texts: { hi: { heading: "x" } } }, "bannerSettings.texts.hi.heading"],
      [{ texts: { en: { title: "x".repeat(201) } } }, "bannerSettings.texts.en.title"],
      [{ showRejectAll: "yes" }, "bannerSettings.showRejectAll"],
    ];
    for (const [settings, field] of cases) {
      assertApiError(await save(settings), 400, "VALIDATION_ERROR", { field });
    }
    assertApiError(
      await dpo(seeded, "PUT", "/api/v1/staff/banner-settings/default", {}),
      400,
      "VALIDATION_ERROR",
      {
        field: "bannerSettings",
      },
    );
    assert.equal(ok<BannerConfig>(await banner(seeded)).configVersion, 1, "nothing refused was saved");

    const settings = {
      position: "bottom-right",
      layout: "box",
      theme: "dark",
      colors: { background: "#101820", text: "#FFFFFF", primary: "#0a84ffcc" },
      fontFamily: "'Noto Sans', Arial, sans-serif",
      borderRadius: 8,
      logoUrl: "https://cdn.example.com/logo.svg",
      privacyPolicyUrl: "https://example.com/privacy",
      defaultLanguage: "hi",
      showRejectAll: true,
      showPreferences: true,
      texts: { en: { title: "Your privacy", acceptAll: "Accept all" }, hi: { title: "आपकी गोपनीयता" } },
    };
    const saved = ok<Scope>(await save(settings));
    assert.deepEqual([saved.scope, saved.configVersion, saved.bannerSettings], ["default", 2, settings]);
    assert.deepEqual(ok<BannerConfig>(await banner(seeded)), { bannerSettings: settings, configVersion: 2 });
    // Saving the same settings again (a retry) does not bump the version.
    assert.equal(ok<Scope>(await save(settings)).configVersion, 2);
    assert.equal(ok<Scope>(await save({ ...settings, theme: "light" })).configVersion, 3);
    assertApiError(
      await staff(seeded, "viewer", "PUT", "/api/v1/staff/banner-settings/default", { bannerSettings: {} }),
      403,
      "FORBIDDEN",
    );
  });

  test("a cosmetic banner edit bumps configVersion and never touches the notice version", async () => {
    const seeded = await seedOrganization(t);
    const notice = await publish(seeded, "default", "Notice v1");
    const before = ok<{ version: number }>(
      await t.request({ method: "GET", url: `/api/v1/notices/${notice.noticeId}` }),
    );
    ok(
      await dpo(seeded, "PUT", "/api/v1/staff/banner-settings/default", {
        bannerSettings: { theme: "dark" },
      }),
    );
    ok(
      await dpo(seeded, "PUT", "/api/v1/staff/banner-settings/default", {
        bannerSettings: { theme: "light" },
      }),
    );
    assert.equal(ok<BannerConfig>(await banner(seeded)).configVersion, 3);
    const afterEdit = ok<{ version: number }>(
      await t.request({ method: "GET", url: `/api/v1/notices/${notice.noticeId}` }),
    );
    assert.equal(afterEdit.version, before.version);
    const versions = await t.db.query("SELECT version FROM notice_versions WHERE organization_id = $1", [
      seeded.org.organizationId,
    ]);
    assert.equal(versions.length, 1);
  });

  test("a domain's own settings: registered domains only, versions only go up, removal falls back to the default", async () => {
    const seeded = await seedOrganization(t);
    assertApiError(
      await dpo(seeded, "PUT", "/api/v1/staff/domains/shop.example.com/banner-settings", {
        bannerSettings: { theme: "dark" },
      }),
      404,
      "NOT_FOUND",
    );
    ok(await dpo(seeded, "PUT", "/api/v1/staff/domains/shop.example.com"));
    ok(
      await dpo(seeded, "PUT", "/api/v1/staff/banner-settings/default", {
        bannerSettings: { theme: "light" },
      }),
    );
    const own = ok<Scope>(
      await dpo(seeded, "PUT", "/api/v1/staff/domains/SHOP.example.com/banner-settings", {
        bannerSettings: { theme: "dark" },
      }),
    );
    assert.deepEqual([own.scope, own.domain, own.configVersion], ["domain", "shop.example.com", 3]);
    assert.deepEqual(ok<BannerConfig>(await banner(seeded, "?domain=shop.example.com")), {
      bannerSettings: { theme: "dark" },
      configVersion: 3,
    });
    const domains = ok<{ domains: { hasOwnBannerSettings: boolean }[] }>(
      await dpo(seeded, "GET", "/api/v1/staff/domains"),
    );
    assert.equal(domains.domains[0]!.hasOwnBannerSettings, true);
    const scopes = ok<{ bannerSettings: Scope[] }>(await dpo(seeded, "GET", "/api/v1/staff/banner-settings"));
    assert.deepEqual(
      scopes.bannerSettings.map((s) => [s.scope, s.domain ?? null, s.configVersion]),
      [
        ["default", null, 2],
        ["domain", "shop.example.com", 3],
      ],
    );

    assert.deepEqual(
      ok(await dpo(seeded, "DELETE", "/api/v1/staff/domains/shop.example.com/banner-settings")),
      {
        removed: true,
      },
    );
    const fallback = ok<BannerConfig>(await banner(seeded, "?domain=shop.example.com"));
    assert.deepEqual(fallback.bannerSettings, { theme: "light" });
    assert.ok(fallback.configVersion > 3, `the domain showed 3, now ${fallback.configVersion}`);
    assert.deepEqual(
      ok(await dpo(seeded, "DELETE", "/api/v1/staff/domains/shop.example.com/banner-settings")),
      {
        removed: false,
      },
    );

    ok(await dpo(seeded, "PUT", "/api/v1/staff/apps/com.example.app"));
    const app = ok<Scope>(
      await dpo(seeded, "PUT", "/api/v1/staff/apps/com.example.app/banner-settings", {
        bannerSettings: { layout: "modal" },
      }),
    );
    assert.deepEqual(ok<BannerConfig>(await banner(seeded, "?appId=com.example.app")).bannerSettings, {
      layout: "modal",
    });
    assert.equal(app.appId, "com.example.app");
  });

  test("the widget config resolves the group's notice, else the default, for the group's own domains only", async () => {
    const seeded = await seedOrganization(t);
    const orgId = seeded.org.organizationId;
    for (const domain of ["shop.example.com", "blog.example.com"])
      ok(await dpo(seeded, "PUT", `/api/v1/staff/domains/${domain}`));
    const defaultNotice = await publish(seeded, "default", "Default notice");
    const shopNotice = await publish(seeded, "shop", "Shop notice");

    const group = ok<Group>(
      await dpo(seeded, "POST", "/api/v1/staff/domain-groups", {
        name: "Shop",
        domains: ["Shop.Example.com"],
      }),
      201,
    );
    assert.match(group.domainGroupId, /^dgr_/);
    assert.deepEqual(
      [group.domains, group.noticeId, group.bannerSettings],
      [["shop.example.com"], null, null],
    );

    const config = ok<Widget>(await widget(group.domainGroupId, "SHOP.example.com"));
    assert.deepEqual(config, {
      organizationId: orgId,
      noticeId: defaultNotice.noticeId,
      noticeVersion: 1,
      notice: {
        content: { en: { ...TEXTS, title: "Default notice" } },
        itemized: [{ purpose: "Account", personalDataDescription: "Email" }],
        languages: ["en"],
      },
    });
    // Strict: a registered domain outside the group, a sub-domain, a parent, an unknown host.
    for (const domain of [
      "blog.example.com",
      "www.shop.example.com",
      "example.com",
      "evil.com",
      "shop.example.com:443",
    ]) {
      assertApiError(await widget(group.domainGroupId, domain), 404, "NOT_FOUND");
    }
    assertApiError(await widget("dgr_doesNotExist000000", "shop.example.com"), 404, "NOT_FOUND");
    assertApiError(await widget("not-an-id", "shop.example.com"), 400, "VALIDATION_ERROR", { field: "id" });
    assertApiError(
      await t.request({ method: "GET", url: `/api/v1/widget/config?id=${group.domainGroupId}` }),
      400,
      "VALIDATION_ERROR",
      {
        field: "domain",
      },
    );

    // The group's own notice and styling.
    const styled = ok<Group>(
      await dpo(seeded, "PUT", `/api/v1/staff/domain-groups/${group.domainGroupId}`, {
        name: "Shop",
        domains: ["shop.example.com"],
        noticeId: shopNotice.noticeId,
        bannerSettings: { theme: "dark", position: "top" },
      }),
    );
    assert.equal(styled.configVersion, 2);
    const own = ok<Widget>(await widget(group.domainGroupId, "shop.example.com"));
    assert.deepEqual(
      [own.noticeId, own.notice.content.en!.title, own.bannerSettings, own.configVersion],
      [shopNotice.noticeId, "Shop notice", { theme: "dark", position: "top" }, 2],
    );
    // Renaming without restyling does not bump configVersion; saving the same definition changes nothing.
    const renamed = ok<Group>(
      await dpo(seeded, "PUT", `/api/v1/staff/domain-groups/${group.domainGroupId}`, {
        name: "Shop front",
        domains: ["shop.example.com"],
        noticeId: shopNotice.noticeId,
        bannerSettings: { position: "top", theme: "dark" },
      }),
    );
    assert.deepEqual([renamed.name, renamed.configVersion], ["Shop front", 2]);

    // The group's notice archived: the default applies; the default archived too: nothing resolves.
    await t.db.query(
      "UPDATE notice_versions SET status = 'archived' WHERE organization_id = $1 AND notice_id = $2 AND status = 'published'",
      [orgId, shopNotice.noticeId],
    );
    assert.equal(
      ok<Widget>(await widget(group.domainGroupId, "shop.example.com")).noticeId,
      defaultNotice.noticeId,
    );
    await t.db.query(
      "UPDATE notice_versions SET status = 'archived' WHERE organization_id = $1 AND notice_id = $2 AND status = 'published'",
      [orgId, defaultNotice.noticeId],
    );
    assertApiError(await widget(group.domainGroupId, "shop.example.com"), 404, "NOT_FOUND");
    await publish(seeded, "default", "Default notice, version 2");
    const v2 = ok<Widget>(await widget(group.domainGroupId, "shop.example.com"));
    assert.deepEqual([v2.noticeId, v2.noticeVersion], [defaultNotice.noticeId, 2]);

    // Unregistering the domain takes it out of the group; deleting the group retires its id.
    const domains = ok<{ domains: { domain: string; domainGroupIds: string[] }[] }>(
      await dpo(seeded, "GET", "/api/v1/staff/domains"),
    );
    assert.deepEqual(domains.domains.find((d) => d.domain === "shop.example.com")!.domainGroupIds, [
      group.domainGroupId,
    ]);
    ok(await dpo(seeded, "DELETE", "/api/v1/staff/domains/shop.example.com"));
    assertApiError(await widget(group.domainGroupId, "shop.example.com"), 404, "NOT_FOUND");
    assert.deepEqual(
      ok<Group>(await dpo(seeded, "GET", `/api/v1/staff/domain-groups/${group.domainGroupId}`)).domains,
      [],
    );
    assert.deepEqual(ok(await dpo(seeded, "DELETE", `/api/v1/staff/domain-groups/${group.domainGroupId}`)), {
      deleted: true,
    });
    assert.deepEqual(ok(await dpo(seeded, "DELETE", `/api/v1/staff/domain-groups/${group.domainGroupId}`)), {
      deleted: false,
    });
    assertApiError(
      await dpo(seeded, "GET", `/api/v1/staff/domain-groups/${group.domainGroupId}`),
      404,
      "NOT_FOUND",
    );
  });

  test("domain groups: references are checked, creation is idempotent by name, names are unique", async () => {
    const seeded = await seedOrganization(t);
    const other = await seedOrganization(t);
    ok(await dpo(seeded, "PUT", "/api/v1/staff/domains/a.example.com"));
    ok(await dpo(other, "PUT", "/api/v1/staff/domains/b.example.com"));
    const otherNotice = await publish(other, "default", "Other");
    const create = (body: unknown) => dpo(seeded, "POST", "/api/v1/staff/domain-groups", body);

    assertApiError(
      await create({ name: "G", domains: ["a.example.com", "b.example.com"] }),
      400,
      "VALIDATION_ERROR",
      {
        field: "domains[1]",
      },
    );
    assertApiError(await create({ name: "G", domains: ["not a host"] }), 400, "VALIDATION_ERROR", {
      field: "domains[0]",
    });
    assertApiError(await create({ name: "G", noticeId: otherNotice.noticeId }), 400, "VALIDATION_ERROR", {
      field: "noticeId",
    });
    assertApiError(await create({ name: "   " }), 400, "VALIDATION_ERROR", { field: "name" });
    assertApiError(await create({ name: "G", bannerSettings: { colour: "#fff" } }), 400, "VALIDATION_ERROR", {
      field: "bannerSettings.colour",
    });
    assertApiError(await create({ domains: ["a.example.com"] }), 400, "VALIDATION_ERROR", { field: "name" });
    assertApiError(
      await staff(seeded, "viewer", "POST", "/api/v1/staff/domain-groups", { name: "G" }),
      403,
      "FORBIDDEN",
    );
    assert.deepEqual(
      ok<{ domainGroups: unknown[] }>(await dpo(seeded, "GET", "/api/v1/staff/domain-groups")).domainGroups,
      [],
    );

    const body = { name: "Main", domains: ["a.example.com"], bannerSettings: { theme: "dark" } };
    const first = ok<Group>(await create(body), 201);
    const again = ok<Group>(await create({ ...body, domains: ["A.EXAMPLE.COM"] }), 201);
    assert.equal(
      again.domainGroupId,
      first.domainGroupId,
      "the same creation repeated answers the same group",
    );
    assertApiError(await create({ ...body, bannerSettings: { theme: "light" } }), 409, "CONFLICT");
    const { headers } = await signIn(t, seeded, "admin");
    const withKey = (payload: Record<string, unknown>) =>
      t.request({
        method: "POST",
        url: "/api/v1/staff/domain-groups",
        headers: { ...headers, "idempotency-key": "group-1" },
        payload,
      });
    const keyed = ok<Group>(await withKey({ name: "Keyed" }), 201);
    const replay = await withKey({ name: "Keyed" });
    assert.equal(replay.headers["idempotent-replayed"], "true");
    assert.equal(ok<Group>(replay, 201).domainGroupId, keyed.domainGroupId);
    assertApiError(await withKey({ name: "Keyed again" }), 409, "CONFLICT");
    ok(await dpo(seeded, "DELETE", `/api/v1/staff/domain-groups/${keyed.domainGroupId}`));

    const second = ok<Group>(await create({ name: "Second" }), 201);
    assertApiError(
      await dpo(seeded, "PUT", `/api/v1/staff/domain-groups/${second.domainGroupId}`, { name: "Main" }),
      409,
      "CONFLICT",
    );
    assert.deepEqual(
      ok<{ domainGroups: Group[] }>(
        await staff(seeded, "viewer", "GET", "/api/v1/staff/domain-groups"),
      ).domainGroups.map((g) => g.name),
      ["Main", "Second"],
    );

    // Another organisation's group is absent to it: 404 to read or replace, nothing to delete; and
    // its widget id serves only its own organisation's domains.
    for (const [method, payload] of [
      ["GET", undefined],
      ["PUT", { name: "X" }],
    ] as const) {
      assertApiError(
        await dpo(other, method, `/api/v1/staff/domain-groups/${first.domainGroupId}`, payload),
        404,
        "NOT_FOUND",
      );
    }
    assert.deepEqual(ok(await dpo(other, "DELETE", `/api/v1/staff/domain-groups/${first.domainGroupId}`)), {
      deleted: false,
    });
    assertApiError(await widget(first.domainGroupId, "b.example.com"), 404, "NOT_FOUND");
    assert.equal(
      ok<Group>(await dpo(seeded, "GET", `/api/v1/staff/domain-groups/${first.domainGroupId}`)).name,
      "Main",
    );
  });
});
