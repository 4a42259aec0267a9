// Every page of the dashboard: one table, so adding a page is one entry here and one folder in
// pages/. Patterns take `:params` ("/rights/dsr/:requestId"); the first matching entry wins, so put
// a specific pattern before a general one. Pages are loaded on first visit (lazy), which keeps the
// first page's download small.
import { lazy, type ComponentType, type LazyExoticComponent } from "react";

/** What a page receives: the params of its pattern. */
export interface PageProps {
  params: Record<string, string>;
}

export interface RouteDef {
  pattern: string;
  page: LazyExoticComponent<ComponentType<PageProps>>;
}

const Overview = lazy(() => import("./pages/overview/index.js"));
const Integrations = lazy(() => import("./pages/integrations/index.js"));
const Notices = lazy(() => import("./pages/notices/index.js"));
const NoticeDetail = lazy(() => import("./pages/notices/NoticeDetail.js"));
const Banner = lazy(() => import("./pages/banner/index.js"));
const Rights = lazy(() => import("./pages/rights/index.js"));
const DsrDetail = lazy(() => import("./pages/rights/DsrDetail.js"));
const GrievanceDetail = lazy(() => import("./pages/rights/GrievanceDetail.js"));
const ConsentLookup = lazy(() => import("./pages/consent-lookup/index.js"));
const ConsentGate = lazy(() => import("./pages/consent-gate/index.js"));
const Offline = lazy(() => import("./pages/offline/index.js"));
const Organisation = lazy(() => import("./pages/organisation/index.js"));
const Export = lazy(() => import("./pages/export/index.js"));
const ProcessingActivities = lazy(() => import("./pages/registers/ProcessingActivities.js"));
const Breaches = lazy(() => import("./pages/registers/Breaches.js"));
const BreachDetail = lazy(() => import("./pages/registers/BreachDetail.js"));
const Retention = lazy(() => import("./pages/registers/Retention.js"));
const Notifications = lazy(() => import("./pages/registers/Notifications.js"));

export const ROUTES: RouteDef[] = [
  { pattern: "/", page: Overview },
  { pattern: "/integrations", page: Integrations },
  { pattern: "/notices", page: Notices },
  { pattern: "/notices/:noticeId", page: NoticeDetail },
  { pattern: "/banner", page: Banner },
  { pattern: "/rights", page: Rights },
  { pattern: "/rights/dsr/:requestId", page: DsrDetail },
  { pattern: "/rights/grievances/:grievanceId", page: GrievanceDetail },
  { pattern: "/rights/:queue", page: Rights },
  { pattern: "/consent-lookup", page: ConsentLookup },
  { pattern: "/consent-gate", page: ConsentGate },
  { pattern: "/offline", page: Offline },
  { pattern: "/organisation", page: Organisation },
  { pattern: "/export", page: Export },
  { pattern: "/ropa", page: ProcessingActivities },
  { pattern: "/breaches", page: Breaches },
  { pattern: "/breaches/:breachId", page: BreachDetail },
  { pattern: "/retention", page: Retention },
  { pattern: "/notifications", page: Notifications },
];

export interface NavItem {
  label: string;
  to: string;
  /** Sub-pages shown under the item. */
  children?: NavItem[];
}

/** The side navigation, in the order of the pages. */
export const NAV: NavItem[] = [
  { label: "Overview", to: "/" },
  { label: "Integrations", to: "/integrations" },
  { label: "Notices", to: "/notices" },
  { label: "Banner", to: "/banner" },
  {
    label: "Rights",
    to: "/rights",
    children: [
      { label: "DSRs", to: "/rights/dsr" },
      { label: "Grievances", to: "/rights/grievances" },
    ],
  },
  { label: "Consent lookup", to: "/consent-lookup" },
  { label: "Consent Gate", to: "/consent-gate" },
  { label: "Offline capture", to: "/offline" },
  {
    label: "Registers",
    to: "/ropa",
    children: [
      { label: "Records of processing", to: "/ropa" },
      { label: "Breaches", to: "/breaches" },
      { label: "Retention", to: "/retention" },
      { label: "Notifications", to: "/notifications" },
    ],
  },
  { label: "Organisation", to: "/organisation" },
  { label: "Export", to: "/export" },
];
