-- Staff sign-in limits (accounts/sign-in-limits.ts): failed attempts counted per account, per
-- client network and per (account, network), and the networks each account has signed in from.
-- Sign-in runs before any organisation is known (the slug may name none, and must behave the same
-- when it does not), so these rows carry no organization_id; like the rate-limit buckets they are
-- deployment-wide.
--
-- - account is '<organisation slug>:<lower-cased email>' as typed, whether or not it exists, or ''
--   for a row counting a network's failures against every account.
-- - network is the client address (an IPv6 client's /64), or '' for a row counting an account's
--   failures from everywhere.
-- - failures counts failed attempts since the last success (a success resets the account's rows);
--   they are forgotten a day after the last failure. blocked_until is when the next attempt is
--   allowed (0: now).
-- - last_success_at, on an (account, network) row, marks a network the account's owner has signed
--   in from: such a network is not held back by failures counted elsewhere.
CREATE TABLE sign_in_counters (
  account         TEXT NOT NULL,
  network         TEXT NOT NULL,
  failures        INTEGER NOT NULL DEFAULT 0 CHECK (failures >= 0),
  last_failure_at BIGINT,
  blocked_until   BIGINT NOT NULL DEFAULT 0,
  last_success_at BIGINT,
  PRIMARY KEY (account, network),
  CHECK (account <> '' OR network <> '')
);
