// Suites side by side (scripts/README.md): which selected suites run at the same time, and how their
// output reaches the terminal without interleaving. Plain JavaScript, like the runner.

/**
 * Suites that run at the same time (scripts/README.md, "Suites side by side"): for suites that
 * each leave a core idle (a server answering one client, a Python fuzzer, a JVM build), never for
 * ones that share a writable resource (the .venv, sdks/jvm/target).
 */
export function beside(...suites) {
  const batch = Symbol(suites.map((s) => s.id).join(" + "));
  return suites.map((suite) => ({ ...suite, batch }));
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
