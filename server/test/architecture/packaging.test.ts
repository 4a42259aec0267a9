// Every package this repository releases carries a LICENSE whose text is the licence its manifest
// declares (Apache-2.0 for the service, contract, dashboard and banner; MIT for the SDKs), and a
// CHANGELOG.md with an entry for the version its manifest carries; published npm packages ship
// both. The SDK READMEs say how to install each SDK from this repository (none is published yet),
// naming the file `npm pack` writes for the current version, so a version bump cannot leave them
// pointing at a tarball that no longer comes out.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), "utf8");

interface Package {
  dir: string;
  name: string;
  version: string;
  license: string;
  /** Published to npm: its `files` decide what ships. */
  npmFiles?: string[];
}

function npmPackages(): Package[] {
  const root = JSON.parse(read("package.json")) as { workspaces: string[] };
  return root.workspaces.map((dir) => {
    const manifest = JSON.parse(read(`${dir}/package.json`)) as {
      name: string;
      version: string;
      license?: string;
      private?: boolean;
      files?: string[];
    };
    return {
      dir,
      name: manifest.name,
      version: manifest.version,
      license: manifest.license ?? "(none)",
      ...(manifest.private ? {} : { npmFiles: manifest.files ?? [] }),
    };
  });
}

function pythonPackage(): Package {
  const pyproject = read("sdks/python/pyproject.toml");
  const versionFile = /\[tool\.hatch\.version\]\s*path = "([^"]+)"/.exec(pyproject)?.[1];
  assert.ok(versionFile, "pyproject.toml names its version file");
  const version = /__version__ = "([^"]+)"/.exec(read(`sdks/python/${versionFile}`))?.[1];
  return {
    dir: "sdks/python",
    name: /^name = "([^"]+)"/m.exec(pyproject)?.[1] ?? "?",
    version: version ?? "?",
    license: /^license = "([^"]+)"/m.exec(pyproject)?.[1] ?? "(none)",
  };
}

function jvmPackage(): Package {
  const pom = read("sdks/jvm/pom.xml");
  const project = pom.replace(/<(dependencies|build|properties|parent)>[\s\S]*?<\/\1>/g, "");
  return {
    dir: "sdks/jvm",
    name: `${/<groupId>([^<]+)/.exec(project)?.[1]}:${/<artifactId>([^<]+)/.exec(project)?.[1]}`,
    version: /<version>([^<]+)/.exec(project)?.[1] ?? "?",
    license: /<license>\s*<name>([^<]+)/.exec(pom)?.[1] ?? "(none)",
  };
}

const PACKAGES = [...npmPackages(), pythonPackage(), jvmPackage()];

/** What each declared licence's text must say. */
const LICENCE_TEXT: Record<string, RegExp[]> = {
  "Apache-2.0": [/^\s*Apache License\s*\n\s*Version 2\.0, January 2004/, /TERMS AND CONDITIONS FOR USE/],
  MIT: [/^MIT License\n/, /Permission is hereby granted, free of charge/],
};

test("the repository's own LICENSE is Apache-2.0, as the README says", () => {
  for (const pattern of LICENCE_TEXT["Apache-2.0"]!) assert.match(read("LICENSE"), pattern);
  assert.match(read("README.md"), /Apache-2\.0 for the service.*\n?.*MIT for the SDKs/);
});

for (const pkg of PACKAGES) {
  test(`${pkg.dir} (${pkg.name} ${pkg.version}): LICENSE matches its ${pkg.license}, CHANGELOG.md has ${pkg.version}`, () => {
    const patterns = LICENCE_TEXT[pkg.license];
    assert.ok(patterns, `${pkg.dir} declares ${pkg.license}, which has no text to check here`);
    assert.ok(fs.existsSync(path.join(ROOT, pkg.dir, "LICENSE")), `${pkg.dir}/LICENSE`);
    const text = read(`${pkg.dir}/LICENSE`);
    for (const pattern of patterns)
      assert.match(text, pattern, `${pkg.dir}/LICENSE is the ${pkg.license} text`);
    assert.ok(fs.existsSync(path.join(ROOT, pkg.dir, "CHANGELOG.md")), `${pkg.dir}/CHANGELOG.md`);
    const escaped = pkg.version.replace(/\./g, "\\.");
    assert.match(read(`${pkg.dir}/CHANGELOG.md`), new RegExp(`^## \\[${escaped}\\]`, "m"));
    if (pkg.npmFiles) {
      for (const file of ["LICENSE", "CHANGELOG.md"]) {
        assert.ok(pkg.npmFiles.includes(file), `${pkg.name}'s "files" ship ${file}`);
      }
    }
  });
}

test("each SDK README says how to install it from this repository, for its current version", () => {
  const byDir = new Map(PACKAGES.map((pkg) => [pkg.dir, pkg]));
  const npmTarball = (dir: string) => {
    const pkg = byDir.get(dir)!;
    return `${pkg.name.replace(/^@/, "").replace("/", "-")}-${pkg.version}.tgz`;
  };
  const node = read("sdks/node/README.md");
  assert.match(node, /npm pack -w sdks\/node/);
  assert.ok(node.includes(`npm install /tmp/${npmTarball("sdks/node")}`), npmTarball("sdks/node"));
  const js = read("sdks/js/README.md");
  assert.match(js, /npm pack -w sdks\/js/);
  assert.ok(js.includes(`npm install /tmp/${npmTarball("sdks/js")}`), npmTarball("sdks/js"));
  assert.match(read("sdks/python/README.md"), /pip install \.\/sdks\/python/);
  const jvm = read("sdks/jvm/README.md");
  assert.match(jvm, /mvn -f sdks\/jvm .*install/);
  assert.ok(jvm.includes(`<version>${byDir.get("sdks/jvm")!.version}</version>`), "the pom's version");
});
