// The deployment files (Dockerfile, deploy/compose.yaml, deploy/guard.service, docs/deploy.md) checked
// without a container engine: the image's stages, user and health check; the Compose file's
// PostgreSQL wiring; the systemd unit's hardening; every setting they name exists in config.ts; and
// the image's health-check command run against a real `guard serve`, and the image's entry point run
// with the runtime stage's settings until that health check passes. No image is built here: this
// machine has no daemon and no registry for a base image (docs/deploy.md, "Checked by").
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";
import { createCliEnvironment } from "../support/cli-helpers.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), "utf8");

// ---- Dockerfile ----------------------------------------------------------------------------------

interface Stage {
  from: string;
  name: string | undefined;
  lines: string[];
}

/** The Dockerfile's instructions (continuations joined, comments dropped), split into stages. */
function dockerStages(text: string): { args: Record<string, string>; stages: Stage[] } {
  const instructions = text
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"));
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of instructions) {
    const [keyword = "", ...rest] = line.split(/\s+/);
    if (keyword.toUpperCase() === "FROM") {
      const [from = "", as, name] = rest;
      stages.push({ from, name: as?.toUpperCase() === "AS" ? name : undefined, lines: [] });
    } else if (stages.length === 0 && keyword.toUpperCase() === "ARG") {
      const [name = "", value = ""] = rest.join(" ").split("=");
      args[name] = value;
    } else {
      stages.at(-1)?.lines.push(line);
    }
  }
  return { args, stages };
}

const dockerfile = dockerStages(read("Dockerfile"));
const runtime = dockerfile.stages.at(-1)!;
const instruction = (stage: Stage, keyword: string) =>
  stage.lines.filter((line) => line.toUpperCase().startsWith(`${keyword} `));

/** The runtime stage's ENV settings (`ENV A=1 B=2` form). */
function runtimeEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of instruction(runtime, "ENV")) {
    for (const pair of line.slice(4).trim().split(/\s+/)) {
      const [name = "", value = ""] = pair.split("=");
      env[name] = value;
    }
  }
  return env;
}

/** HEALTHCHECK's command, in exec form (a JSON array after CMD). */
function healthCommand(): string[] {
  const [line] = instruction(runtime, "HEALTHCHECK");
  assert.ok(line, "the runtime stage has a HEALTHCHECK");
  const json = /\bCMD\s+(\[.*\])\s*$/.exec(line)?.[1];
  assert.ok(json, `HEALTHCHECK uses the exec form CMD [...] (got ${line})`);
  return JSON.parse(json) as string[];
}

describe("Dockerfile", () => {
  test("is multi-stage on Node.js 20 (Debian slim): a build stage, a production-dependencies stage, the runtime", () => {
    assert.ok(
      dockerfile.stages.length >= 3,
      `stages: ${dockerfile.stages.map((s) => s.name ?? s.from).join(", ")}`,
    );
    for (const stage of dockerfile.stages) {
      const image = stage.from.replace(/^\$\{(\w+)\}$/, (_, name: string) => dockerfile.args[name] ?? "");
      assert.match(image, /^node:20-bookworm-slim$/, `FROM ${stage.from}`);
    }
    const build = dockerfile.stages.find((s) => s.name === "build");
    assert.ok(build, "a stage named build");
    const buildRuns = instruction(build, "RUN").join("\n");
    assert.match(buildRuns, /npm ci(?!\s+--omit)/, "the build stage installs every dependency");
    assert.match(buildRuns, /build -w banner/, "the build stage builds the hosted banner");
    assert.match(buildRuns, /build -w dashboard/, "the build stage builds the dashboard");
    assert.match(
      buildRuns,
      /build -w server/,
      "the build stage builds the server (a start transpiles nothing)",
    );
    const deps = dockerfile.stages.find((s) => s.name === "deps");
    assert.ok(deps, "a stage named deps");
    assert.match(instruction(deps, "RUN").join("\n"), /npm ci --omit=dev/, "production dependencies only");
    assert.deepEqual(
      instruction(runtime, "RUN").filter((line) => /\bnpm\b/.test(line)),
      [],
      "no npm in the runtime stage",
    );
    const copiedFromBuild = instruction(runtime, "COPY").filter((line) => line.includes("--from=build"));
    assert.ok(
      copiedFromBuild.some((line) => line.includes("banner/dist")),
      "the built banner",
    );
    assert.ok(
      copiedFromBuild.some((line) => line.includes("dashboard/dist")),
      "the built dashboard",
    );
    assert.ok(
      !copiedFromBuild.some((line) => /node_modules/.test(line)),
      "no dev dependencies from the build stage",
    );
    for (const dir of ["server", "contract"]) {
      assert.ok(
        copiedFromBuild.some((line) => line.includes(`/src/${dir}/ ./${dir}/`)),
        `${dir}/ with its build, from the build stage`,
      );
    }
  });

  test("runs as a non-root user, listens on every address at the exposed port, keeps its data on a volume", () => {
    const users = instruction(runtime, "USER").map((line) => line.split(/\s+/)[1]);
    assert.equal(users.length, 1, "one USER in the runtime stage");
    assert.ok(!["root", "0", "0:0"].includes(users[0]!), `USER ${users[0]}`);
    const env = runtimeEnv();
    assert.equal(env.GUARD_HOST, "0.0.0.0");
    assert.equal(env.NODE_ENV, "production");
    assert.deepEqual(
      instruction(runtime, "EXPOSE").map((line) => line.split(/\s+/)[1]),
      [env.PORT],
    );
    const volumes = instruction(runtime, "VOLUME").join(" ");
    assert.ok(
      env.GUARD_DATA_DIR && volumes.includes(env.GUARD_DATA_DIR),
      `VOLUME holds ${env.GUARD_DATA_DIR}`,
    );
    assert.match(read("Dockerfile"), /ENTRYPOINT \["node", "server\/bin\/guard\.js"\]/);
  });

  test("checks health with Node (no curl) against /healthz, the route the contract and the server define", () => {
    const command = healthCommand();
    assert.equal(command[0], "node");
    const script = command[1]!;
    assert.ok(fs.existsSync(path.join(ROOT, script)), `${script} exists`);
    assert.ok(read(script).includes('"/healthz"'), `${script} asks /healthz`);
    assert.match(read("contract/openapi/v1.yaml"), /^ {2}\/healthz:$/m, "the contract defines GET /healthz");
    const copied = instruction(runtime, "COPY").join("\n");
    assert.ok(copied.includes(script), `the runtime stage copies ${script}`);
  });

  test(".dockerignore keeps secrets, dependencies and data directories out of the build context", () => {
    const ignored = read(".dockerignore").split("\n");
    for (const pattern of ["**/.env", "**/node_modules", ".git", "**/.guard-data*"]) {
      assert.ok(ignored.includes(pattern), `.dockerignore lists ${pattern}`);
    }
  });
});

// ---- Compose ---------------------------------------------------------------------------------

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  volumes?: string[];
}

describe("deploy/compose.yaml", () => {
  const compose = parseYaml(read("deploy/compose.yaml")) as { services: Record<string, ComposeService> };
  const postgres = compose.services.postgres!;
  const guard = compose.services.guard!;

  test("runs PostgreSQL 15 with a health check and a named volume for its data", () => {
    assert.match(postgres.image ?? "", /^postgres:15(\b|-)/);
    assert.ok(postgres.healthcheck?.test.join(" ").includes("pg_isready"));
    assert.ok(postgres.volumes?.some((v) => v.endsWith(":/var/lib/postgresql/data")));
  });

  test("builds Guard from the repository's Dockerfile and starts it once PostgreSQL is healthy", () => {
    const context = path.resolve(ROOT, "deploy", guard.build!.context);
    assert.equal(context, ROOT);
    assert.ok(fs.existsSync(path.join(context, guard.build!.dockerfile)));
    assert.equal(guard.depends_on?.postgres?.condition, "service_healthy");
    assert.deepEqual(guard.healthcheck?.test, ["CMD", ...healthCommand()], "the image's own health check");
  });

  test("wires DATABASE_URL to the postgres service with its password, and takes every secret from the env file", () => {
    const env = guard.environment!;
    const url = /^postgres:\/\/guard:(\$\{POSTGRES_PASSWORD[^}]*\})@postgres:5432\/guard$/.exec(
      env.DATABASE_URL ?? "",
    );
    assert.ok(url, `DATABASE_URL ${env.DATABASE_URL}`);
    assert.equal(postgres.environment?.POSTGRES_PASSWORD, url[1]);
    for (const secret of ["GUARD_TOKEN_SECRET", "GUARD_AUDIT_HASH_KEYS", "GUARD_SECRETS_KEY"]) {
      // ${NAME:?message}: Compose refuses to start without it, and no value is written here.
      assert.match(env[secret] ?? "", new RegExp(`^\\$\\{${secret}:\\?[^}]+\\}$`), secret);
    }
    assert.match(postgres.environment?.POSTGRES_PASSWORD ?? "", /^\$\{POSTGRES_PASSWORD:\?/);
  });
});

// ---- systemd ---------------------------------------------------------------------------------

describe("deploy/guard.service", () => {
  const unit = read("deploy/guard.service");
  const settings = new Map<string, string[]>();
  for (const line of unit.split("\n")) {
    const match = /^(\w+)=(.*)$/.exec(line.trim());
    if (match) settings.set(match[1]!, [...(settings.get(match[1]!) ?? []), match[2]!]);
  }
  const one = (key: string) => settings.get(key)?.at(-1);

  test("runs `guard serve` as a dedicated user, restarts on failure, reads its secrets from an environment file", () => {
    assert.ok(one("User") && one("User") !== "root");
    assert.match(one("ExecStart") ?? "", /node \S*server\/bin\/guard\.js serve$/);
    assert.equal(one("Restart"), "on-failure");
    assert.match(one("EnvironmentFile") ?? "", /^-?\/etc\/guard\/guard\.env$/);
  });

  test("is hardened: no new privileges, a read-only system but for the data directory", () => {
    const dataDir = settings
      .get("Environment")
      ?.map((value) => /^GUARD_DATA_DIR=(.*)$/.exec(value)?.[1])
      .find(Boolean);
    assert.ok(dataDir, "GUARD_DATA_DIR is set");
    const expected: Record<string, string> = {
      NoNewPrivileges: "yes",
      ProtectSystem: "strict",
      ProtectHome: "yes",
      PrivateTmp: "yes",
      PrivateDevices: "yes",
      ReadWritePaths: dataDir,
      CapabilityBoundingSet: "",
    };
    for (const [key, value] of Object.entries(expected)) assert.equal(one(key), value, key);
    assert.equal(one("StateDirectory"), path.basename(dataDir), "systemd creates the data directory");
  });

  test("its install steps, and docs/deploy.md's, build the server before the first start", () => {
    // ProtectSystem=strict makes the checkout read-only to the service: without a build made as
    // root, every start would run the TypeScript sources through tsx.
    const steps = unit
      .split("\n")
      .filter((line) => line.startsWith("#"))
      .join("\n");
    assert.match(steps, /npm run build -w server/, "deploy/guard.service's install comment");
    const systemd = /## systemd\n([\s\S]*?)\n## /.exec(read("docs/deploy.md"))?.[1] ?? "";
    assert.match(systemd, /^npm ci && .*npm run build -w server$/m, "docs/deploy.md, systemd");
  });

  test("passes systemd-analyze verify, where systemd is installed", (t) => {
    const check = spawnSync("systemd-analyze", ["verify", path.join(ROOT, "deploy/guard.service")], {
      encoding: "utf8",
    });
    if (check.error) {
      t.skip("systemd-analyze is not installed");
      return;
    }
    const complaints = check.stderr
      .split("\n")
      .filter(
        (line) =>
          line.includes("guard.service") && !/Failed to (look up|resolve) user|not executable/i.test(line),
      );
    assert.deepEqual(complaints, []);
  });
});

// ---- settings named in the deployment files exist ------------------------------------------------

test("every GUARD_* setting the deployment files and docs/deploy.md name is one config.ts reads", () => {
  const config = read("server/src/config.ts");
  const known = new Set([...config.matchAll(/\b(GUARD_[A-Z0-9_]+)\b/g)].map((m) => m[1]!));
  const files = [
    "docs/deploy.md",
    "deploy/compose.yaml",
    "deploy/env.example",
    "deploy/guard.service",
    "deploy/healthcheck.mjs",
    "Dockerfile",
  ];
  const unknown: string[] = [];
  for (const file of files) {
    for (const [name] of read(file).matchAll(/\bGUARD_[A-Z0-9_]+\b/g)) {
      if (!known.has(name)) unknown.push(`${file}: ${name}`);
    }
  }
  assert.deepEqual([...new Set(unknown)], []);
  assert.match(config, /env\.DATABASE_URL/);
  assert.match(config, /env: "PORT"/);
});

// ---- the health check against a real server --------------------------------------------------

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

function runHealthCheck(port: number): Promise<number | null> {
  const [command, ...args] = healthCommand();
  assert.equal(command, "node");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT, // the image's WORKDIR holds the same layout as the repository
      env: { ...process.env, ...runtimeEnv(), PORT: String(port) },
      stdio: "ignore",
    });
    child.on("error", reject);
    child.on("exit", (code) => resolve(code));
  });
}

test("the image's health check passes against a running `guard serve` and fails once it stops", async () => {
  const cli = await createCliEnvironment();
  try {
    const server = await cli.serve();
    const port = Number(new URL(server.url).port);
    try {
      assert.equal(await runHealthCheck(port), 0);
    } finally {
      await server.stop();
    }
    assert.equal(await runHealthCheck(port), 1);
  } finally {
    await cli.dispose();
  }
});

// ---- the image's entry point with the image's settings -------------------------------------------

/** An exec-form instruction of the runtime stage (ENTRYPOINT or CMD) as its argument list. */
function execForm(keyword: string): string[] {
  const [line] = instruction(runtime, keyword);
  assert.ok(line, `the runtime stage has ${keyword}`);
  return JSON.parse(line.slice(keyword.length).trim()) as string[];
}

test("the image's entry point, with the image's settings, serves and passes its health check; CLI commands run beside it", async () => {
  const [command, ...entryArgs] = execForm("ENTRYPOINT");
  assert.equal(command, "node");
  const cmd = execForm("CMD");
  assert.deepEqual(cmd, ["serve"], "the default command serves");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-image-"));
  const port = await freePort();
  // The runtime stage's ENV (production, every address, the volume's path), a free port, no
  // DATABASE_URL: what `docker run -v guard-data:/var/lib/guard guard` starts.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...runtimeEnv(),
    GUARD_DATA_DIR: dataDir,
    PORT: String(port),
    GUARD_LOG_LEVEL: "warn",
  };
  delete env.DATABASE_URL;
  const run = (args: string[]) =>
    spawnSync(process.execPath, [...entryArgs, ...args], { cwd: ROOT, env, encoding: "utf8" });
  const server = spawn(process.execPath, [...entryArgs, ...cmd], { cwd: ROOT, env, stdio: "ignore" });
  const exited = new Promise<number | null>((resolve) => server.on("exit", (code) => resolve(code)));
  try {
    let healthy = false;
    for (let attempt = 0; attempt < 120 && !healthy; attempt++) {
      healthy = (await runHealthCheck(port)) === 0;
      if (!healthy) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    assert.ok(healthy, "the health check passes once the server listens");
    // `docker exec guard node server/bin/guard.js org create ...`: handed to the running server.
    const created = run(["--json", "org", "create", "--slug", "acme", "--name", "Acme"]);
    assert.equal(created.status, 0, created.stderr);
    const listed = run(["--json", "org", "list"]);
    assert.equal(listed.status, 0, listed.stderr);
    assert.match(listed.stdout, /"slug":"acme"/);
    assert.equal(run(["--version"]).status, 0);
  } finally {
    server.kill("SIGTERM");
    assert.equal(await exited, 0, "SIGTERM stops it cleanly");
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
