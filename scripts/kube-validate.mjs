// Offline validation of rendered manifests against the Kubernetes OpenAPI schemas, for
// scripts/helm-lint.mjs.
//
// kubernetes-validate (PyPI) bundles the JSON schemas of every Kubernetes minor from 1.25 to 1.37
// (strict variants included: unknown fields are errors), so nothing is fetched at validation
// time. Pinned: kubernetes-validate 1.37.0 (the wheel's sha256 below), installed with its
// dependencies (pinned versions, from PyPI) into .local/tools/kubernetes-validate with
// `pip install --target`, and run as `python3 -m kubernetes_validate` with that directory on
// PYTHONPATH. The marker file records the wheel's digest and the Python version (rpds-py, a
// dependency, is a compiled wheel per Python version).
//
// Custom resources (monitoring.coreos.com: ServiceMonitor, PrometheusRule) have no schema in it;
// the caller separates them and says so (see helm-lint.mjs).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const DEST = join(ROOT, ".local", "tools", "kubernetes-validate");

export const KUBERNETES_VALIDATE = {
  spec: "kubernetes-validate==1.37.0",
  sha256: "85136d018a27b50ec7fc049d902bfa5193f5976807e6c0f408e3ab6fe078cad9",
  // Its requirements (PyYAML, jsonschema>=4.23, typing-extensions, importlib-resources,
  // packaging, referencing) and theirs, at the versions checked here.
  deps: [
    "PyYAML==6.0.4",
    "jsonschema==4.26.0",
    "jsonschema-specifications==2025.9.1",
    "referencing==0.37.0",
    "rpds-py==2026.9.1",
    "attrs==26.1.0",
    "typing-extensions==4.16.0",
    "importlib-resources==7.1.0",
    "packaging==26.3",
  ],
};

const log = (msg) => process.stderr.write(`[helm-lint] ${msg}\n`);

function python() {
  for (const cmd of ["python3", "python"]) {
    if (spawnSync(cmd, ["--version"], { stdio: "ignore" }).status === 0) return cmd;
  }
  throw new Error("python3 is needed to run kubernetes-validate");
}

/** kubernetes-validate in .local/tools/kubernetes-validate; answers how to run it. */
export function ensureKubernetesValidate() {
  const py = python();
  const pyVersion = spawnSync(py, ["-c", "import sys; print(sys.version.split()[0])"], {
    encoding: "utf8",
  }).stdout.trim();
  const marker = join(DEST, ".installed");
  const want = `${KUBERNETES_VALIDATE.sha256} python ${pyVersion}`;
  const run = { python: py, env: { ...process.env, PYTHONPATH: DEST, PYTHONDONTWRITEBYTECODE: "1" } };
  if (existsSync(marker) && readFileSync(marker, "utf8") === want) return run;

  const dl = mkdtempSync(join(tmpdir(), "kubernetes-validate-"));
  try {
    log(`fetching ${KUBERNETES_VALIDATE.spec} from PyPI`);
    const got = spawnSync(
      py,
      ["-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:", "-d", dl, KUBERNETES_VALIDATE.spec],
      {
        stdio: ["ignore", "ignore", "inherit"],
      },
    );
    if (got.status !== 0) throw new Error(`pip download ${KUBERNETES_VALIDATE.spec} failed`);
    const [wheel] = readdirSync(dl).filter((f) => f.endsWith(".whl"));
    if (!wheel) throw new Error(`pip download ${KUBERNETES_VALIDATE.spec} produced no wheel`);
    const digest = createHash("sha256")
      .update(readFileSync(join(dl, wheel)))
      .digest("hex");
    if (digest !== KUBERNETES_VALIDATE.sha256)
      throw new Error(`${wheel}: sha256 ${digest} differs from the pinned ${KUBERNETES_VALIDATE.sha256}`);
    rmSync(DEST, { recursive: true, force: true });
    mkdirSync(DEST, { recursive: true });
    const args = [
      "-m",
      "pip",
      "install",
      "-q",
      "--no-input",
      "--disable-pip-version-check",
      "--no-warn-script-location",
    ];
    const inst = spawnSync(
      py,
      [...args, "--only-binary=:all:", "--target", DEST, join(dl, wheel), ...KUBERNETES_VALIDATE.deps],
      { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, PIP_ROOT_USER_ACTION: "ignore" } },
    );
    if (inst.status !== 0) throw new Error("pip install of kubernetes-validate and its dependencies failed");
    writeFileSync(marker, want);
    log(`installed kubernetes-validate into ${DEST}`);
    return run;
  } finally {
    rmSync(dl, { recursive: true, force: true });
  }
}

/**
 * Validates a multi-document YAML stream (only objects with a schema in the bundle) against each
 * Kubernetes version, strictly. Throws with kubernetes-validate's findings; a document whose kind
 * has no schema is an error too (the caller removes the custom resources it knows beforehand).
 */
export function validateManifests(kv, yaml, versions) {
  const dir = mkdtempSync(join(tmpdir(), "kube-validate-"));
  try {
    const file = join(dir, "manifests.yaml");
    writeFileSync(file, yaml);
    const args = ["-m", "kubernetes_validate", "--strict", "--quiet", ...versions.flatMap((v) => ["-k", v]), file];
    const r = spawnSync(kv.python, args, { env: kv.env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    const out = `${r.stdout ?? ""}${r.stderr ?? ""}`.trim();
    if (r.status !== 0 || /^(ERROR|WARN)\b/m.test(out)) throw new Error(`kubernetes-validate:\n${out}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
