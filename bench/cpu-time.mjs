// CPU time (user + system) consumed by a process, or by a process and its children, read from
// Linux's /proc. The benchmark divides it by the requests served to show where each request's CPU
// goes (server, database, load generator): on a small machine they compete for the same cores.
// Elsewhere than Linux every reading is undefined and the benchmark leaves those columns out.
import fs from "node:fs";
import path from "node:path";

// Linux reports these times in clock ticks of 1/100 s on every architecture Node runs on
// (USER_HZ; `getconf CLK_TCK`).
const TICKS_PER_SECOND = 100;

export const cpuTimeAvailable = fs.existsSync("/proc/self/stat");

/**
 * Of one process, undefined once it is gone: the parent pid, utime + stime in seconds, and
 * cutime + cstime (the time of its children that exited and were waited for).
 */
function readStat(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses; the fields after its last ")" do not.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return {
      ppid: Number(fields[1]),
      seconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND,
      exitedChildrenSeconds: (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND,
    };
  } catch {
    return undefined;
  }
}

/** CPU seconds used so far by `pid`. */
export function processCpuSeconds(pid) {
  return cpuTimeAvailable ? readStat(pid)?.seconds : undefined;
}

/**
 * CPU seconds used so far by `pid` and its direct children (a PostgreSQL postmaster and its
 * backends), those that have exited included: the postmaster waits for each backend, and the
 * kernel then adds the backend's time to the postmaster's children's time.
 */
export function processTreeCpuSeconds(pid) {
  if (!cpuTimeAvailable) return undefined;
  const root = readStat(pid);
  if (!root) return undefined;
  let seconds = root.seconds + root.exitedChildrenSeconds;
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (stat?.ppid === pid) seconds += stat.seconds;
  }
  return seconds;
}

/** The postmaster's pid, from the first line of `postmaster.pid` in a cluster's data directory. */
export function postmasterPid(dataDir) {
  try {
    return Number(fs.readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  } catch {
    return undefined;
  }
}
