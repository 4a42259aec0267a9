// The accounts domain's store: the only code reading or writing organizations (with each
// organisation's capability switches and settings document), api_keys, staff_users, staff_sessions
// and principals, one file per aggregate under store/, and the sign-in counters (sign_in_counters).
// Other domains import from here.
export * from "./store/api-keys.js";
export * from "./store/organizations.js";
export * from "./store/principals.js";
export * from "./store/sign-in.js";
export * from "./store/staff.js";
