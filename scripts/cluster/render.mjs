// The local cluster's configuration, taken from the chart: `helm template` renders the release
// (scripts/cluster/values.yaml + per-cluster --set: replica counts, addresses, local secrets), and
// each process gets the env its container would get in Kubernetes — envFrom ConfigMaps, env
// values, secretKeyRef/configMapKeyRef resolved from the rendered Secret/ConfigMap, fieldRef
// (POD_ID = the StatefulSet pod name) and $(VAR) expansion — so the chart and the cluster cannot
// drift. After rendering, only what one machine needs differently is overridden (OVERRIDES: the
// listen addresses and ports, each replica on its own port, and the session pods' advertised URL);
// each override is listed with its reason and shown by `pnpm cluster status --overrides`.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { CHART, helmRunner, must, ROOT } from "../helm-lib.mjs";

export const RELEASE = "cluster";
export const NAMESPACE = "cluster";
export const VALUES_FILE = join(ROOT, "scripts", "cluster", "values.yaml");

/** The workloads the chart renders per role (Deployment or StatefulSet, container named as the role). */
const WORKLOADS = { gateway: "Deployment", session: "StatefulSet", worker: "Deployment" };

/**
 * What the cluster changes in a rendered env, and why. `ports` are the process's own ports, given
 * by the caller (each replica gets free ports: every process shares 127.0.0.1).
 */
export const OVERRIDES = {
  gateway: [
    {
      name: "HOST",
      why: "a container listens on 0.0.0.0 of its own network; here on 127.0.0.1",
      value: () => "127.0.0.1",
    },
    { name: "PORT", why: "each replica on its own port of one host", value: (p) => String(p.public) },
    { name: "INTERNAL_HOST", why: "as HOST", value: () => "127.0.0.1" },
    { name: "INTERNAL_PORT", why: "each replica on its own port", value: (p) => String(p.internal) },
  ],
  session: [
    { name: "SESSION_HOST", why: "as the gateway's HOST", value: () => "127.0.0.1" },
    { name: "SESSION_PORT", why: "each pod on its own port", value: (p) => String(p.session) },
    {
      name: "SESSION_ADVERTISE_URL",
      why: "no cluster DNS: the headless Service's pod name becomes 127.0.0.1:<its port>",
      value: (p) => `http://127.0.0.1:${p.session}`,
    },
  ],
  worker: [
    { name: "WORKER_HOST", why: "as the gateway's HOST", value: () => "127.0.0.1" },
    { name: "WORKER_PORT", why: "each replica on its own port", value: (p) => String(p.health) },
  ],
};

/** { "a.b": v } → { a: { b: v } } (values given as dotted paths, like --set). */
export function nestValues(set) {
  const out = {};
  for (const [path, v] of Object.entries(set)) {
    const keys = path.split(".");
    let node = out;
    for (const k of keys.slice(0, -1)) node = node[k] ??= {};
    node[keys.at(-1)] = v;
  }
  return out;
}

/**
 * `helm template` of the chart for a local cluster. `set` are values by dotted path, e.g.
 * { "config.REDIS_URL": "redis://127.0.0.1:6400", "session.replicaCount": 3 }, given to Helm as
 * one more values file (JSON is YAML; no --set escaping of commas and '=' in secrets); their type
 * is kept (numbers for counts, strings for config). `valuesFiles`: more -f files after ours.
 */
export function renderManifests({ set = {}, valuesFiles = [], log } = {}) {
  const h = helmRunner(log);
  const tmp = mkdtempSync(join(tmpdir(), "cluster-values-"));
  try {
    const file = join(tmp, "values.json");
    writeFileSync(file, JSON.stringify(nestValues(set)), { mode: 0o600 });
    const args = ["template", RELEASE, CHART, "--namespace", NAMESPACE, "-f", VALUES_FILE];
    for (const f of [...valuesFiles, file]) args.push("-f", f);
    const out = must(h(args), "helm template").stdout;
    return parseAllDocuments(out)
      .map((d) => d.toJS())
      .filter((o) => o && typeof o === "object" && o.kind);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

const decode = (b64) => Buffer.from(b64, "base64").toString("utf8");

/** Kubernetes' $(VAR) expansion of env values: defined names expand, $$ escapes, others stay. */
function expand(value, env) {
  return value.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (m, name) =>
    m === "$$" ? "$" : name in env ? env[name] : m,
  );
}

/** The env a pod's container gets, as the kubelet builds it (envFrom first, then env in order). */
export function containerEnv(container, { objects, podName, namespace = NAMESPACE }) {
  const configMap = (name) => objects.find((o) => o.kind === "ConfigMap" && o.metadata.name === name)?.data;
  const secret = (name) => {
    const s = objects.find((o) => o.kind === "Secret" && o.metadata.name === name);
    if (!s) return undefined;
    return Object.fromEntries([
      ...Object.entries(s.data ?? {}).map(([k, v]) => [k, decode(v)]),
      ...Object.entries(s.stringData ?? {}),
    ]);
  };
  const env = {};
  for (const from of container.envFrom ?? []) {
    const ref = from.configMapRef ?? from.secretRef;
    const data = from.configMapRef ? configMap(ref.name) : secret(ref.name);
    if (!data) {
      if (ref.optional) continue;
      throw new Error(`${container.name}: envFrom ${ref.name} is not rendered`);
    }
    for (const [k, v] of Object.entries(data)) env[`${from.prefix ?? ""}${k}`] = String(v);
  }
  for (const e of container.env ?? []) {
    if ("value" in e) env[e.name] = expand(String(e.value ?? ""), env);
    else if (e.valueFrom?.fieldRef) {
      const path = e.valueFrom.fieldRef.fieldPath;
      if (path === "metadata.name") env[e.name] = podName;
      else if (path === "metadata.namespace") env[e.name] = namespace;
      else throw new Error(`${container.name}: fieldRef ${path} is not supported locally`);
    } else if (e.valueFrom?.secretKeyRef || e.valueFrom?.configMapKeyRef) {
      const ref = e.valueFrom.secretKeyRef ?? e.valueFrom.configMapKeyRef;
      const data = e.valueFrom.secretKeyRef ? secret(ref.name) : configMap(ref.name);
      const value = data?.[ref.key];
      if (value === undefined) {
        if (ref.optional) continue;
        throw new Error(`${container.name}: ${e.name} refers to ${ref.name}/${ref.key}, which is not rendered`);
      }
      env[e.name] = String(value);
    } else if (e.valueFrom) throw new Error(`${container.name}: ${e.name}: unsupported valueFrom`);
    else env[e.name] = "";
  }
  return env;
}

/** Port number of a probe's `port` (a number or a container port's name). */
function probePort(container, port) {
  if (typeof port === "number") return port;
  const found = (container.ports ?? []).find((p) => p.name === port);
  if (!found) throw new Error(`${container.name}: probe port ${port} is not a container port`);
  return found.containerPort;
}

/**
 * Per role: the workload's name, replica count, each pod's name and rendered env, and where its
 * readiness probe looks (path and container port).
 */
export function roleSpecs(objects) {
  const specs = {};
  for (const [role, kind] of Object.entries(WORKLOADS)) {
    const w = objects.find((o) => o.kind === kind && o.metadata?.labels?.["app.kubernetes.io/component"] === role);
    if (!w) continue;
    const container = w.spec.template.spec.containers.find((c) => c.name === role);
    if (!container) throw new Error(`${kind}/${w.metadata.name} has no container named ${role}`);
    const probe = container.readinessProbe?.httpGet ?? container.startupProbe?.httpGet;
    const replicas = w.spec.replicas ?? 1;
    // A StatefulSet's pods are <name>-<ordinal>; a Deployment's have a random suffix (never read
    // by the services: only session pods take their name, through POD_ID).
    const pods = Array.from({ length: replicas }, (_, i) => {
      const podName = `${w.metadata.name}-${i}`;
      return { podName, env: containerEnv(container, { objects, podName }) };
    });
    specs[role] = {
      kind,
      name: w.metadata.name,
      replicas,
      pods,
      ready: probe ? { path: probe.path, port: probePort(container, probe.port) } : undefined,
      ports: Object.fromEntries((container.ports ?? []).map((p) => [p.name, p.containerPort])),
    };
  }
  return specs;
}

/** The rendered ConfigMap's data and the rendered Secret's (decoded): what simnet and cloudmock share. */
export function sharedEnv(objects) {
  const env = {};
  for (const o of objects) {
    if (o.kind === "ConfigMap" && o.metadata.name.endsWith("-config")) Object.assign(env, o.data);
  }
  for (const o of objects) {
    if (o.kind === "Secret") for (const [k, v] of Object.entries(o.data ?? {})) env[k] = decode(v);
  }
  return env;
}

/** A rendered env with the role's overrides applied; `ports` as OVERRIDES expects. */
export function withOverrides(role, env, ports) {
  const out = { ...env };
  for (const o of OVERRIDES[role] ?? []) out[o.name] = o.value(ports);
  return out;
}
