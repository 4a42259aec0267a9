// Suites side by side (scripts/README.md): which selected suites run at the same time, and how their
// output reaches the terminal without interleaving. Plain JavaScript, like the runner.

/**
 * Suites that run at the same time (scripts/README.md, "Suites side by side"): each argument is a
 * lane, one suite or an array of suites that run one after the other; the lanes run at once. For
 * suites that each leave a core idle (a server answering one client, a Python fuzzer, a JVM build),
 * never for ones that share a writable resource (the .venv, sdks/jvm/target) across lanes.
 */
export function beside(...lanes) {
  const members = lanes.map((lane) => [lane].flat());
  const batch = Symbol(members.map((lane) => lane.map((s) => s.id).join(" → ")).join(" + "));
  return members.flatMap((lane, index) => lane.map((suite) => ({ ...suite, batch, lane: index })));
}

/** The selected suites in order, those of one `beside()` batch together. */
export function batches(suites) {
  const grouped = [];
  for (const suite of suites) {
    const last = grouped.at(-1);
    if (suite.batch && last?.[0].batch === suite.batch) last.push(suite);
    else grouped.push([suite]);
  }
  return grouped;
}

/** Whether two suites of one batch run in the same lane (one after the other). */
const sameLane = (a, b) => a === b || (a.lane !== undefined && a.lane === b.lane);

/**
 * What runs at the same time as `suite`: each other lane of its batch, as its suites' titles in
 * order ("fuzz (PGlite) → fuzz (PostgreSQL)").
 */
export function besideOf(batch, suite) {
  const lanes = new Map();
  for (const other of batch) {
    if (sameLane(other, suite)) continue;
    const key = other.lane ?? other;
    lanes.set(key, [...(lanes.get(key) ?? []), other.title]);
  }
  return [...lanes.values()].map((titles) => titles.join(" → "));
}

/**
 * Runs a batch: its lanes at once, each lane's suites one after the other, through
 * `run(suite, index)`. Returns one promise per suite, in the batch's order. A lane stops starting
 * suites once `stopped()` says so; those suites resolve to `skip(suite)`.
 */
export function runLanes(batch, run, { stopped = () => false, skip = () => ({}) } = {}) {
  const laneEnds = new Map();
  return batch.map((suite, index) => {
    const key = suite.lane ?? suite;
    const previous = laneEnds.get(key) ?? Promise.resolve();
    const result = previous.then(() => (stopped() ? skip(suite) : run(suite, index)));
    laneEnds.set(
      key,
      result.then(
        () => undefined,
        () => undefined,
      ),
    );
    return result;
  });
}

/**
 * Where one suite's output goes: to the terminal, or held while another suite of its batch streams
 * there, until `goLive()` prints what was held and lets the rest through. Output of suites side by
 * side is never interleaved.
 */
export class SuiteOutput {
  #held = []; // [stream, chunk], in order, while not live
  #live = false;
  #terminal;
  stdout = { write: (chunk) => this.#write(this.#terminal.stdout, chunk) };
  stderr = { write: (chunk) => this.#write(this.#terminal.stderr, chunk) };

  /** `terminal`: where live output goes (the process's own streams unless a test passes others). */
  constructor(terminal = process) {
    this.#terminal = terminal;
  }

  #write(stream, chunk) {
    if (this.#live) stream.write(chunk);
    else this.#held.push([stream, chunk]);
  }

  log(line) {
    this.stdout.write(`${line}\n`);
  }

  error(line) {
    this.stderr.write(`${line}\n`);
  }

  goLive() {
    for (const [stream, chunk] of this.#held) stream.write(chunk);
    this.#held = [];
    this.#live = true;
  }
}
