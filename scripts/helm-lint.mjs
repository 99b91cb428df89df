import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { CHART, documents, helmRunner, must, ROOT } from "./helm-lib.mjs";
import { ensureKubernetesValidate, KUBERNETES_VALIDATE, validateManifests } from "./kube-validate.mjs";
import { checkDashboard, DASHBOARD, exportedMetrics, promqlError, promqlParser } from "./promql-lint.mjs";

const FULL_VALUES = join(CHART, "ci", "full-values.yaml");
// The oldest Kubernetes the chart supports (Chart.yaml kubeVersion) and the newest whose schemas
// kubernetes-validate bundles: manifests are rendered for, and validated against, each.
const KUBE_VERSIONS = ["1.31.0", "1.37.0"];
// Custom resources without a schema in kubernetes-validate: separated before validation, named in
// the output, and checked by this script's own assertions.
const CUSTOM_API_GROUPS = /^monitoring\.coreos\.com\//;

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

const sets = (values) => values.flatMap((v) => ["--set", v]);

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

async function main() {
  const h = helmRunner(log);

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

  // --- values.schema.json: bad values fail at `helm template` / `helm install`, before rendering.
  const SCHEMA_ERROR = /values don't meet the specifications of the schema/;
  const refuses = (name, values, message, { schema = true } = {}) =>
    check(`helm template refuses ${name}`, () => {
      const r = h(["template", "gw", CHART, ...sets(values)]);
      if (r.status === 0) throw new Error(`rendered with ${name}`);
      if (schema && !SCHEMA_ERROR.test(r.stderr)) throw new Error(`not refused by values.schema.json:\n${r.stderr}`);
      if (!message.test(r.stderr)) throw new Error(`unexpected error (want ${message}):\n${r.stderr}`);
      return message.source.replaceAll("\\", "");
    });
  const setString = (values) => values.flatMap((v) => ["--set-string", v]);

  // Missing required secrets (no value, no existingSecret, no refs entry).
  refuses(
    "missing secrets",
    ["config.PUBLIC_BASE_URL=https://gateway.example.com"],
    /secrets\.adminToken: String length must be greater than or equal to 8/,
  );
  refuses(
    "a missing secrets.internalSecret",
    WITHOUT("secrets.internalSecret="),
    /secrets\.internalSecret: String length must be greater than or equal to 16/,
  );
  refuses("a missing secrets.authStateKey", WITHOUT("secrets.authStateKey="), /secrets\.authStateKey: String length/);
  refuses(
    "secrets.redisUrlFromSecret without secrets.redisUrl",
    [...REQUIRED, "secrets.redisUrlFromSecret=true"],
    /secrets\.redisUrl: String length must be greater than or equal to 1/,
  );
  refuses(
    "a secrets.refs entry without its key",
    [...WITHOUT("secrets.adminToken="), "secrets.refs.adminToken.name=gw-admin"],
    /secrets\.refs\.adminToken: key is required/,
  );
  refuses(
    "a missing config.PUBLIC_BASE_URL",
    WITHOUT("config.PUBLIC_BASE_URL="),
    /config\.PUBLIC_BASE_URL: Does not match pattern/,
  );
  // Malformed values.
  refuses(
    "a secrets.authStateKey that is not 32 bytes",
    [...WITHOUT("secrets.authStateKey="), `secrets.authStateKey=${Buffer.alloc(16, 3).toString("base64")}`],
    /secrets\.authStateKey: Does not match pattern/,
  );
  refuses(
    "a secrets.smtpUrl that is not smtp(s)://",
    [...REQUIRED, "secrets.smtpUrl=smtp.example.com:587"],
    /secrets\.smtpUrl: Does not match pattern/,
  );
  refuses(
    "a config.TEMPORAL_ADDRESS without a port",
    [...REQUIRED, "config.TEMPORAL_ADDRESS=temporal"],
    /config\.TEMPORAL_ADDRESS: Does not match/,
  );
  refuses(
    "an image digest that is not sha256:…",
    [...REQUIRED, "image.digest=latest"],
    /image\.digest: Does not match pattern/,
  );
  // Wrong types.
  check("helm template refuses wrong types", () => {
    const cases = [
      [["session.capacity=many"], /session\.capacity: Invalid type\. Expected: integer, given: string/],
      [
        ["gateway.autoscaling.enabled=yes"],
        /gateway\.autoscaling\.enabled: Invalid type\. Expected: boolean, given: string/,
      ],
      [["config.RATE_LIMIT_BURST=forty"], /config\.RATE_LIMIT_BURST: Must validate at least one schema/],
      [["gateway.extraEnv=x"], /gateway\.extraEnv: Invalid type\. Expected: array, given: string/],
    ];
    for (const [values, message] of cases) {
      const r = h(["template", "gw", CHART, ...sets(REQUIRED), ...setString(values)]);
      if (r.status === 0 || !SCHEMA_ERROR.test(r.stderr) || !message.test(r.stderr))
        throw new Error(`${values} not refused as ${message}:\n${r.stderr}`);
    }
    return `${cases.length} refused`;
  });
  // Out of range and not in the enum.
  refuses(
    "session.leaseTtlMs below 500",
    [...REQUIRED, "session.leaseTtlMs=100"],
    /session\.leaseTtlMs: Must be greater than or equal to 500/,
  );
  refuses(
    "a port above 65535",
    [...REQUIRED, "worker.port=70000"],
    /worker\.port: Must be less than or equal to 65535/,
  );
  refuses(
    "worker.dispatchConcurrency 0",
    [...REQUIRED, "worker.dispatchConcurrency=0"],
    /worker\.dispatchConcurrency: Must be greater than or equal to 1/,
  );
  refuses("config.EVENT_SHARDS above 256", [...REQUIRED, "config.EVENT_SHARDS=300"], /config\.EVENT_SHARDS/);
  refuses(
    "an unknown config.LOG_LEVEL",
    [...REQUIRED, "config.LOG_LEVEL=loud"],
    /config\.LOG_LEVEL must be one of the following/,
  );
  refuses(
    "an unknown gateway.service.type",
    [...REQUIRED, "gateway.service.type=Magic"],
    /gateway\.service\.type must be one of/,
  );
  refuses(
    "a PrometheusRule ratio above 1",
    [...REQUIRED, "metrics.prometheusRule.alerts.gatewayErrors.ratio=5"],
    /metrics\.prometheusRule\.alerts\.gatewayErrors\.ratio: Must be less than or equal to 1/,
  );
  // Unknown keys (additionalProperties: false everywhere the chart owns the shape).
  check("helm template refuses unknown keys", () => {
    const cases = [
      ["replicas=3", /\(root\): Additional property replicas is not allowed/],
      ["config.REDIS_ULR=redis://x:6379", /config: Additional property REDIS_ULR is not allowed/],
      ["session.leaseTTLMs=3000", /session: Additional property leaseTTLMs is not allowed/],
      ["secrets.refs.adminTokn.name=x", /secrets\.refs: Additional property adminTokn is not allowed/],
      ["networkPolicy.egress.enable=true", /networkPolicy\.egress: Additional property enable is not allowed/],
    ];
    for (const [value, message] of cases) {
      const r = h(["template", "gw", CHART, ...sets([...REQUIRED, value])]);
      if (r.status === 0 || !SCHEMA_ERROR.test(r.stderr) || !message.test(r.stderr))
        throw new Error(`${value} not refused as ${message}:\n${r.stderr}`);
    }
    return `${cases.length} refused`;
  });
  // Variables the chart sets itself are not config keys (nor any other name config.ts lacks).
  check("helm template refuses reserved keys in config", () => {
    const keys = [
      "ROLES",
      "POD_ID",
      "SESSION_ADVERTISE_URL",
      "LEASE_TTL_MS",
      "AUTH_STATE_KEY",
      "SMTP_URL",
      "WORKER_PORT",
    ];
    for (const key of keys) {
      const r = h(["template", "gw", CHART, ...sets(REQUIRED), "--set", `config.${key}=x`]);
      if (r.status === 0) throw new Error(`rendered with config.${key}`);
      if (!r.stderr.includes(`Additional property ${key} is not allowed`))
        throw new Error(`unexpected error:\n${r.stderr}`);
    }
    // The template's own check stays for renders that skip the schema.
    const r = h(["template", "gw", CHART, "--skip-schema-validation", ...sets(REQUIRED), "--set", "config.ROLES=x"]);
    if (r.status === 0 || !r.stderr.includes("config.ROLES is set by the chart"))
      throw new Error(`unexpected:\n${r.stderr}`);
    return `config.{${keys.join(",")}} rejected`;
  });
  // What JSON Schema cannot see: the templates' own checks.
  refuses(
    "secrets.authStateKey equal to secrets.webhookSecretKey",
    [...WITHOUT("secrets.authStateKey="), `secrets.authStateKey=${WEBHOOK_KEY}`],
    /secrets\.authStateKey must differ from secrets\.webhookSecretKey/,
    { schema: false },
  );
  refuses(
    "a session StatefulSet name over 52 characters",
    [...REQUIRED, `fullnameOverride=${"x".repeat(50)}`],
    /longer than 52 characters/,
    { schema: false },
  );
  refuses(
    "networkPolicy.egress without backends",
    [...REQUIRED, "networkPolicy.enabled=true", "networkPolicy.egress.enabled=true"],
    /networkPolicy\.egress: Must validate "then"|backends/,
  );

  check("NetworkPolicies without metricsFrom: nothing may reach the worker, egress left open", () => {
    const out = must(
      h(["template", "gw", CHART, ...sets(REQUIRED), "--set", "networkPolicy.enabled=true"]),
      "helm template",
    ).stdout;
    expectAll(doc(out, "NetworkPolicy/gw-gateway-worker"), "worker NetworkPolicy", [/^ {2}ingress: \[\]\n/m]);
    for (const role of ["gateway", "session", "worker"]) {
      expectNone(doc(out, `NetworkPolicy/gw-gateway-${role}`), `${role} NetworkPolicy`, [/Egress/, /egress:/]);
    }
    // The public port stays open to anyone without publicFrom.
    expectAll(doc(out, "NetworkPolicy/gw-gateway-gateway"), "gateway NetworkPolicy", [
      /- port: public\n\s+protocol: TCP\n\s+# Internal/,
    ]);
    return "worker ingress: [], no egress rules";
  });

  // --- The schema and the chart cover exactly the variables config.ts reads.
  check("values.schema.json config keys + the chart's own variables = config.ts", () => {
    const configTs = readFileSync(join(ROOT, "services/platform/src/infra/config.ts"), "utf8");
    const body = configTs.slice(configTs.indexOf("export const configSchema"));
    const read = new Set([...body.matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]));
    const schema = JSON.parse(readFileSync(join(ROOT, CHART, "values.schema.json"), "utf8"));
    const offered = new Set(Object.keys(schema.properties.config.properties));
    const helpers = readFileSync(join(ROOT, CHART, "templates/_helpers.tpl"), "utf8");
    const reserved = new Set(/define "gw\.reservedEnv" -}}\n(.*)\n/.exec(helpers)[1].trim().split(/\s+/));
    const notOffered = new Set(["WEBHOOK_RETRY_SCHEDULE_OVERRIDE_MS"]); // tests only
    const covered = new Set([...offered, ...reserved, ...notOffered]);
    const missing = [...read].filter((k) => !covered.has(k));
    const unknown = [...covered].filter((k) => !read.has(k));
    const both = [...offered].filter((k) => reserved.has(k));
    if (missing.length || unknown.length || both.length)
      throw new Error(`config.ts not covered: ${missing}; not in config.ts: ${unknown}; offered and reserved: ${both}`);
    // Every variable the roles' pods get (ConfigMap keys and env) is one config.ts reads.
    const envNames = [...rendered.matchAll(/^\s+- name: ([A-Z][A-Z0-9_]+)\n\s+value(?:From)?:/gm)].map((m) => m[1]);
    const cmKeys = [...doc(rendered, "ConfigMap/gw-gateway-config").matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map(
      (m) => m[1],
    );
    const stray = [...new Set([...envNames, ...cmKeys])].filter((k) => !read.has(k));
    if (stray.length) throw new Error(`rendered variables config.ts does not read: ${stray}`);
    return `${read.size} variables: ${offered.size} in config, ${reserved.size} set by the chart, ${notOffered.size} not offered`;
  });

  // --- Every optional feature (ci/full-values.yaml).
  let full = "";
  check("helm template ci/full-values.yaml (every optional feature)", () => {
    full = must(h(["template", "gw", CHART, "--namespace", "gw", "-f", FULL_VALUES]), "helm template full").stdout;
    const objs = objects(full);
    for (const want of [
      "Ingress/gw-gateway-gateway",
      "NetworkPolicy/gw-gateway-gateway",
      "NetworkPolicy/gw-gateway-session",
      "NetworkPolicy/gw-gateway-worker",
      "Service/gw-gateway-worker-metrics",
      "ServiceMonitor/gw-gateway-gateway",
      "ServiceMonitor/gw-gateway-session",
      "ServiceMonitor/gw-gateway-worker",
      "PrometheusRule/gw-gateway",
      "ConfigMap/gw-gateway-dashboard",
      "Job/gw-gateway-temporal-namespace",
      "Secret/gw-gateway-secrets",
    ]) {
      if (!objs.includes(want)) throw new Error(`missing ${want}; rendered: ${objs.join(", ")}`);
    }
    // Secrets: refs win (INTERNAL_SECRET, AUTH_STATE_KEY from gw-external), values go to the Secret.
    expectAll(doc(full, "StatefulSet/gw-gateway-session"), "session (full)", [
      /name: INTERNAL_SECRET\n\s+valueFrom:\n\s+secretKeyRef:\n\s+name: gw-external\n\s+key: internal-secret\n/,
      /name: AUTH_STATE_KEY\n\s+valueFrom:\n\s+secretKeyRef:\n\s+name: gw-external\n\s+key: auth-state-key\n/,
      /name: REDIS_URL\n\s+valueFrom:\n\s+secretKeyRef:\n\s+name: gw-gateway-secrets\n\s+key: REDIS_URL\n/,
      /name: CLOUD_CREDENTIALS_KEY\n\s+valueFrom:\n\s+secretKeyRef:\n\s+name: gw-gateway-secrets\n\s+key: CLOUD_CREDENTIALS_KEY\n\s+optional: true/,
    ]);
    const secret = doc(full, "Secret/gw-gateway-secrets");
    expectNone(secret, "Secret (full)", [/INTERNAL_SECRET/, /AUTH_STATE_KEY/]);
    expectAll(secret, "Secret (full)", [/ADMIN_TOKEN:/, /REDIS_URL:/, /SMTP_URL:/, /CLOUD_WEBHOOK_VERIFY_TOKEN:/]);
    expectNone(doc(full, "ConfigMap/gw-gateway-config"), "ConfigMap with redisUrlFromSecret", [/REDIS_URL/]);
    expectAll(doc(full, "Deployment/gw-gateway-gateway"), "gateway (full)", [/name: CLOUD_WEBHOOK_VERIFY_TOKEN\n/]);
    expectNone(doc(full, "Deployment/gw-gateway-worker"), "worker (full)", [
      /CLOUD_WEBHOOK_VERIFY_TOKEN/,
      /AUTH_STATE_KEY/,
    ]);
    // NetworkPolicies: the session port only from the release's pods and metricsFrom (its
    // /metrics), the public port only from publicFrom, the worker only from metricsFrom; egress
    // open to the backends.
    expectAll(doc(full, "NetworkPolicy/gw-gateway-session"), "session NetworkPolicy", [
      /- port: session\n\s+protocol: TCP\n\s+from:\n\s+- podSelector:\n\s+matchLabels:\n\s+app\.kubernetes\.io\/instance: gw\n\s+app\.kubernetes\.io\/name: gateway\n\s+- namespaceSelector:\n\s+matchLabels:\n\s+kubernetes\.io\/metadata\.name: monitoring\n\s+egress:/,
    ]);
    expectAll(doc(full, "NetworkPolicy/gw-gateway-gateway"), "gateway NetworkPolicy", [
      /- port: public\n\s+protocol: TCP\n\s+from:\n\s+- namespaceSelector:\n\s+matchLabels:\n\s+kubernetes\.io\/metadata\.name: ingress-nginx/,
      /- port: internal\n\s+protocol: TCP\n\s+from:\n\s+- podSelector:/,
      /- Egress/,
      /port: 6379/,
      /cidr: 0\.0\.0\.0\/0\n\s+except:\n\s+- 10\.0\.0\.0\/8/,
    ]);
    expectAll(doc(full, "NetworkPolicy/gw-gateway-worker"), "worker NetworkPolicy", [
      /- port: health\n\s+protocol: TCP\n\s+from:\n\s+- namespaceSelector:\n\s+matchLabels:\n\s+kubernetes\.io\/metadata\.name: monitoring/,
    ]);
    // The hook Job prepares the namespace with inline settings (it runs before the ConfigMap exists).
    expectAll(doc(full, "Job/gw-gateway-temporal-namespace"), "Temporal namespace Job", [
      /"helm\.sh\/hook": pre-install,pre-upgrade/,
      /name: TEMPORAL_ADDRESS\n\s+value: "temporal-frontend\.temporal:7233"/,
      /name: TEMPORAL_NAMESPACE\n\s+value: "messaging"/,
      /name: TEMPORAL_NAMESPACE_RETENTION_DAYS\n\s+value: "7"/,
      /- services\/main\/src\/temporal-namespace\.ts/,
      /readOnlyRootFilesystem: true/,
    ]);
    if (!existsSync(join(ROOT, "services/main/src/temporal-namespace.ts")))
      throw new Error("the Job's entry is missing");
    // ServiceMonitors name ports their Services have.
    expectAll(doc(full, "ServiceMonitor/gw-gateway-gateway"), "gateway ServiceMonitor", [
      /- port: http-internal\n/,
      /release: kube-prometheus-stack/,
    ]);
    expectAll(doc(full, "ServiceMonitor/gw-gateway-worker"), "worker ServiceMonitor", [/- port: http-metrics\n/]);
    expectAll(doc(full, "ServiceMonitor/gw-gateway-session"), "session ServiceMonitor", [
      /- port: http-session\n\s+path: \/metrics\n/,
    ]);
    expectAll(doc(full, "Service/gw-gateway-gateway-internal"), "internal Service", [/- name: http-internal\n/]);
    expectAll(doc(full, "Service/gw-gateway-worker-metrics"), "worker metrics Service", [
      /- name: http-metrics\n\s+port: 8083\n\s+targetPort: health/,
    ]);
    return `${objs.length} objects: ${objs.join(", ")}`;
  });

  const promql = await promqlParser();
  check("PrometheusRule expressions parse as PromQL and name only metrics the services export", () => {
    const exported = exportedMetrics();
    const rule = doc(full, "PrometheusRule/gw-gateway");
    const alerts = [...rule.matchAll(/- alert: (\w+)\n\s+expr: (?:>-\n)?([\s\S]*?)\n\s+for:/g)];
    const own = alerts.filter(([, name]) => name !== "GatewayWorkerRestarting"); // full-values' additionalRules
    if (own.length !== 9) throw new Error(`expected the chart's 9 alerts, found ${own.map((a) => a[1])}`);
    for (const [, name, expr] of alerts) {
      const error = promqlError(promql, expr.replace(/\s+/g, " "));
      if (error) throw new Error(`${name}: ${error}`);
    }
    for (const [, name, expr] of own) {
      const names = [...expr.replace(/"[^"]*"/g, '""').matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{/g)].map((m) => m[1]);
      if (names.length === 0) throw new Error(`${name}: no metric selector in ${expr}`);
      for (const metric of names) {
        const base = metric.replace(/_(bucket|sum|count)$/, "");
        if (!exported.has(metric) && !exported.has(base))
          throw new Error(`${name} uses ${metric}, which no service exports`);
      }
    }
    return own.map(([, name]) => name).join(", ");
  });

  check(
    "Grafana dashboard ConfigMap: the sidecar's label, the chart's JSON as is, its PromQL valid on exported metrics",
    () => {
      const cm = doc(full, "ConfigMap/gw-gateway-dashboard");
      expectAll(cm, "dashboard ConfigMap", [
        /^ {2}namespace: monitoring\n/m,
        /^ {4}grafana_dashboard: "1"\n/m,
        /^ {4}grafana_folder: Messaging\n/m,
      ]);
      const json = parseYaml(cm).data["messaging-gateway-fleet.json"];
      if (JSON.stringify(JSON.parse(json)) !== JSON.stringify(JSON.parse(readFileSync(DASHBOARD, "utf8"))))
        throw new Error("the rendered dashboard differs from dashboards/fleet.json");
      const { errors, count } = checkDashboard(promql, JSON.parse(json), exportedMetrics());
      if (errors.length) throw new Error(errors.join("\n"));
      if (objects(rendered).includes("ConfigMap/gw-gateway-dashboard"))
        throw new Error("dashboard rendered by default");
      return `${count} expressions`;
    },
  );

  check(
    "tracing: the OpenTelemetry SDK's variables in the ConfigMap when tracing.otlpEndpoint is set, none by default",
    () => {
      expectAll(doc(full, "ConfigMap/gw-gateway-config"), "ConfigMap (full)", [
        /^ {2}OTEL_EXPORTER_OTLP_ENDPOINT: "http:\/\/otel-collector\.monitoring:4318"\n/m,
        /^ {2}OTEL_TRACES_SAMPLER: "parentbased_traceidratio"\n/m,
        /^ {2}OTEL_TRACES_SAMPLER_ARG: "0\.25"\n/m,
      ]);
      expectNone(rendered, "manifests by default", [/OTEL_/]);
      return "OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG";
    },
  );

  // --- Offline validation against the Kubernetes OpenAPI schemas.
  const kv = ensureKubernetesValidate();
  const validate = (label, args) =>
    check(`kubernetes-validate --strict ${label} (Kubernetes ${KUBE_VERSIONS.join(", ")})`, () => {
      const skipped = new Set();
      for (const version of KUBE_VERSIONS) {
        const out = must(
          h(["template", "gw", CHART, "--namespace", "gw", "--kube-version", version, ...args]),
          "helm template",
        ).stdout;
        const core = [];
        for (const d of documents(out)) {
          if (CUSTOM_API_GROUPS.test(/^apiVersion:\s*(\S+)/m.exec(d.text)?.[1] ?? "")) skipped.add(d.id);
          else core.push(d.text);
        }
        validateManifests(kv, core.join("\n---\n"), [version]);
      }
      const n = documents(
        must(h(["template", "gw", CHART, "--namespace", "gw", ...args]), "helm template").stdout,
      ).length;
      return `${n - skipped.size} objects valid${skipped.size ? `; skipped (custom resources, no schema offline): ${[...skipped].join(", ")}` : ""}`;
    });
  log(`kubernetes-validate ${KUBERNETES_VALIDATE.spec.split("==")[1]}`);
  validate("defaults", sets(REQUIRED));
  validate("ci/full-values.yaml", ["-f", FULL_VALUES]);
  validate("secrets.existingSecret, no autoscaling, no session role, NetworkPolicies without metricsFrom", [
    "--set",
    "networkPolicy.enabled=true",
    "--set",
    "secrets.existingSecret=gw-secrets",
    "--set",
    "config.PUBLIC_BASE_URL=https://gateway.example.com",
    "--set",
    "gateway.autoscaling.enabled=false",
    "--set",
    "session.enabled=false",
  ]);

  process.stdout.write(`helm-lint: ${passed} passed, ${failed} failed\n`);
  process.exit(failed === 0 ? 0 : 1);
}

try {
  await main();
} catch (err) {
  log(err.message);
  process.exit(1);
}
