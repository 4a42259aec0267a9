// The registers pages' form logic (issue 27): list parsing, datetime-local round trips, and the
// partial updates that send only what changed (each update is an audit entry naming its fields).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { components } from "../src/api/schema.js";
import {
  activityCreateBody,
  activityFormOf,
  activityPatch,
  breachPatch,
  breachReportsFormOf,
  EMPTY_ACTIVITY_FORM,
  formatDays,
  fromLocalInput,
  LEGAL_BASES,
  LOG_CLASSES,
  logRetentionFormOf,
  logRetentionPatch,
  movesWindows,
  parseCountries,
  policyTermsFormOf,
  policyTermsPatch,
  recipientsOf,
  splitLines,
  splitList,
  toLocalInput,
} from "../src/lib/registers.js";

type Activity = components["schemas"]["ProcessingActivity"];
type Breach = components["schemas"]["StaffBreach"];
type Policy = components["schemas"]["RetentionPolicy"];

const activity: Activity = {
  activityId: "act_1",
  name: "Order fulfilment",
  purpose: "Delivery",
  description: null,
  dataCategories: ["name", "address"],
  legalBasis: "consent",
  recipients: [{ name: "ShipCo", role: "processor", country: "SG" }],
  storageLocation: "ap-south-1",
  crossesBorder: true,
  destinationCountries: ["SG"],
  createdAt: 1,
  updatedAt: 1,
  archivedAt: null,
};

test("lists: lines keep commas, lists split on commas too; blanks and repeats dropped; countries in capitals", () => {
  assert.deepEqual(splitLines("Orders, returns\n\n  Marketing \nMarketing"), [
    "Orders, returns",
    "Marketing",
  ]);
  assert.deepEqual(splitList("name, email\naddress,, email"), ["name", "email", "address"]);
  assert.deepEqual(parseCountries(" us, sg;de  US "), ["US", "SG", "DE"]);
  assert.deepEqual(parseCountries("   "), []);
});

test("the five legal bases of the contract, each once", () => {
  assert.deepEqual(
    LEGAL_BASES.map(([value]) => value),
    ["consent", "deemed_consent", "legal_obligation", "vital_interest", "public_task"],
  );
});

test("datetime-local values round-trip to the minute; empty or malformed is undefined", () => {
  const at = Date.UTC(2026, 10, 27, 4, 21, 37, 500);
  const input = toLocalInput(at);
  assert.match(input, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);
  assert.equal(fromLocalInput(input), at - 37_500);
  assert.equal(fromLocalInput(""), undefined);
  assert.equal(fromLocalInput("27/11/2026 10:00"), undefined);
});

test("recipients: blank rows dropped, country in capitals, a blank country omitted", () => {
  assert.deepEqual(
    recipientsOf([
      { name: " ShipCo ", role: "processor", country: "sg" },
      { name: "Bank", role: "recipient", country: " " },
      { name: " ", role: "processor", country: "" },
    ]),
    [
      { name: "ShipCo", role: "processor", country: "SG" },
      { name: "Bank", role: "recipient" },
    ],
  );
});

test("create body: destinations only when crossing the border; optional fields left out when empty", () => {
  const form = {
    ...EMPTY_ACTIVITY_FORM,
    name: " Payroll ",
    purpose: "Salaries",
    dataCategories: "name, PAN",
  };
  assert.deepEqual(activityCreateBody({ ...form, storageLocation: "Mumbai", destinationCountries: "US" }), {
    name: "Payroll",
    purpose: "Salaries",
    dataCategories: ["name", "PAN"],
    legalBasis: "consent",
    storageLocation: "Mumbai",
    crossesBorder: false,
  });
  const abroad = activityCreateBody({ ...form, crossesBorder: true, destinationCountries: "us" });
  assert.deepEqual(abroad.destinationCountries, ["US"]);
});

test("activity patch: nothing changed is null; only changed fields; emptied lists and text are null", () => {
  const form = activityFormOf(activity);
  assert.equal(activityPatch(activity, form), null);
  assert.deepEqual(activityPatch(activity, { ...form, name: "Fulfilment", legalBasis: "legal_obligation" }), {
    name: "Fulfilment",
    legalBasis: "legal_obligation",
  });
  assert.deepEqual(activityPatch(activity, { ...form, crossesBorder: false, recipients: [] }), {
    crossesBorder: false,
    destinationCountries: null,
    recipients: null,
  });
  assert.deepEqual(activityPatch({ ...activity, description: "Old" }, { ...form, description: "" }), {
    description: null,
  });
  assert.deepEqual(activityPatch(activity, { ...form, destinationCountries: "SG, US" }), {
    destinationCountries: ["SG", "US"],
  });
});

const breach: Breach = {
  breachId: "brc_1",
  description: "Laptop stolen",
  discoveredAt: 1_000_000,
  occurredAt: null,
  affectedPurposes: [],
  affectedDataCategories: [],
  mitigation: null,
  drill: false,
  status: "reported_user_pending",
  principalNotificationDueAt: 2,
  boardReportDueAt: 3,
  certInReportDueAt: 4,
  reportedToUserAt: null,
  reportedToBoardAt: 1_700_000_000_000,
  detailedReportSubmittedAt: null,
  certInReportSubmittedAt: null,
  principalNotificationDueState: "on_time",
  boardReportDueState: "on_time",
  affectedPrincipals: { total: 0, notified: 0, pending: 0 },
  recordedBy: "stf_1",
  createdAt: 1,
  updatedAt: 1,
};

test("breach patch: a recorded report time is never sent back; new times and changed text are", () => {
  const form = breachReportsFormOf(breach);
  assert.equal(breachPatch(breach, form), null, "the form as loaded changes nothing");
  const detailed = Date.UTC(2026, 0, 2, 3, 4);
  assert.deepEqual(
    breachPatch(breach, {
      ...form,
      mitigation: " Keys rotated ",
      reportedToBoardAt: toLocalInput(1_800_000_000_000),
      detailedReportSubmittedAt: toLocalInput(detailed),
    }),
    { mitigation: "Keys rotated", detailedReportSubmittedAt: detailed },
  );
  assert.equal(breachPatch(breach, { ...form, mitigation: "  " }), null, "an empty mitigation stays unset");
});

test("retention policy patch: only what was changed, numbers as typed, an emptied floor as null", () => {
  const floor = Date.UTC(2025, 10, 13, 18, 30, 15); // seconds the minute-wide input cannot show
  const policy: Policy = {
    policyId: "rtp_1",
    name: "Shop accounts",
    purpose: "Shopping",
    activityId: null,
    anchorEvent: "last_interaction",
    durationDays: 1095,
    noticeHours: 48,
    windowFloorAt: floor,
    preset: "ecommerce",
    createdAt: 1,
    createdBy: "stf_1",
    updatedAt: 1,
    updatedBy: "stf_1",
    archivedAt: null,
    archivedBy: null,
  };
  const loaded = policyTermsFormOf(policy);
  assert.deepEqual(loaded, {
    name: "Shop accounts",
    durationDays: "1095",
    noticeHours: "48",
    windowFloorAt: toLocalInput(floor),
  });
  assert.equal(policyTermsPatch(loaded, loaded), null, "the form as loaded changes nothing");
  assert.equal(
    policyTermsPatch(loaded, { ...loaded, name: " Shop accounts " }),
    null,
    "spaces are no change",
  );
  const renamed = policyTermsPatch(loaded, { ...loaded, name: " Accounts ", noticeHours: "72" });
  assert.deepEqual(renamed, { name: "Accounts", noticeHours: 72 });
  assert.equal(movesWindows(renamed!), false);
  const longer = policyTermsPatch(loaded, { ...loaded, durationDays: "1460" });
  assert.deepEqual(longer, { durationDays: 1460 });
  assert.equal(movesWindows(longer!), true);
  const noFloor = policyTermsPatch(loaded, { ...loaded, windowFloorAt: "" });
  assert.deepEqual(noFloor, { windowFloorAt: null });
  assert.equal(movesWindows(noFloor!), true);
  const later = Date.UTC(2026, 0, 1, 0, 0);
  assert.deepEqual(policyTermsPatch(loaded, { ...loaded, windowFloorAt: toLocalInput(later) }), {
    windowFloorAt: later,
  });
  // What the server refuses is sent for it to name: an emptied number, an emptied name.
  assert.deepEqual(policyTermsPatch(loaded, { ...loaded, durationDays: "", name: "" }), {
    name: "",
    durationDays: 0,
  });
});

test("log retention patch: only the classes changed; empty is forever (null); none changed is null", () => {
  const unset = { retainDays: null, updatedAt: null, updatedBy: null };
  const policy: components["schemas"]["LogRetentionPolicy"] = {
    auditEntries: { retainDays: 730, updatedAt: 5, updatedBy: "stf_1" },
    consentEvents: unset,
    gateDecisions: unset,
    webhookDeliveries: { retainDays: 365, updatedAt: 5, updatedBy: "cli:ops" },
    minimumRetainDays: 365,
  };
  const loaded = logRetentionFormOf(policy);
  assert.deepEqual(loaded, {
    auditEntries: "730",
    consentEvents: "",
    gateDecisions: "",
    webhookDeliveries: "365",
  });
  assert.deepEqual(LOG_CLASSES, ["auditEntries", "consentEvents", "gateDecisions", "webhookDeliveries"]);
  assert.equal(logRetentionPatch(loaded, loaded), null);
  assert.equal(logRetentionPatch(loaded, { ...loaded, auditEntries: " 730 " }), null, "spaces are no change");
  assert.deepEqual(logRetentionPatch(loaded, { ...loaded, auditEntries: "", gateDecisions: "400" }), {
    auditEntries: null,
    gateDecisions: 400,
  });
  assert.deepEqual(logRetentionPatch(loaded, { ...loaded, webhookDeliveries: "100" }), {
    webhookDeliveries: 100,
  });
});

test("formatDays: years and days as staff say them", () => {
  assert.equal(formatDays(1095), "3 years");
  assert.equal(formatDays(375), "1 year 10 days");
  assert.equal(formatDays(45), "45 days");
  assert.equal(formatDays(1), "1 day");
});
