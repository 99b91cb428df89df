// The local cluster's renderer (scripts/cluster/render.mjs): each process's env comes from the
// manifests `helm template` renders for its pod, so a value changed in the chart's values shows up
// in the env, and only the listed overrides differ from the rendered container env.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  containerEnv,
  type K8sObject,
  OVERRIDES,
  renderManifests,
  roleSpecs,
  sharedEnv,
  withOverrides,
} from "../scripts/cluster/render.mjs";

const SECRETS = {
  "secrets.adminToken": "render-admin-token",
  "secrets.internalSecret": "render-internal-secret-0123",
  "secrets.webhookSecretKey": Buffer.alloc(32, 7).toString("base64"),
  "secrets.authStateKey": Buffer.alloc(32, 8).toString("base64"),
  "config.PUBLIC_BASE_URL": "http://127.0.0.1:1",
};
const tmp = mkdtempSync(join(tmpdir(), "cluster-render-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// Helm runs once per render (the first call installs it into .local/tools/helm when missing).
describe("cluster renderer", { timeout: 300_000 }, () => {
  it("takes every role's env, replica count and probes from the rendered manifests", () => {
    const objects = renderManifests({ set: { ...SECRETS, "session.replicaCount": 3, "worker.replicaCount": 1 } });
    const roles = roleSpecs(objects);
    expect(roles.session?.kind).toBe("StatefulSet");
    expect(roles.session?.pods.map((p) => p.podName)).toEqual([
      "cluster-gateway-session-0",
      "cluster-gateway-session-1",
      "cluster-gateway-session-2",
    ]);
    expect(roles.worker?.replicas).toBe(1);
    const pod = roles.session?.pods[1]?.env ?? {};
    // fieldRef metadata.name, and $(POD_ID) expanded in the advertised URL as the kubelet does.
    expect(pod.POD_ID).toBe("cluster-gateway-session-1");
    expect(pod.SESSION_ADVERTISE_URL).toBe(
      "http://cluster-gateway-session-1.cluster-gateway-session.cluster.svc.cluster.local:8082",
    );
    // envFrom the ConfigMap (the chart's default and the cluster's values file) and secretKeyRef.
    expect(pod.LEASE_TTL_MS).toBe("3000");
    expect(pod.ENABLE_SIM_PROVIDER).toBe("true");
    expect(pod.AUTH_STATE_KEY).toBe(SECRETS["secrets.authStateKey"]);
    expect(roles.gateway?.pods[0]?.env.ADMIN_TOKEN).toBe("render-admin-token");
    // The gateway has no AUTH_STATE_KEY in its pod spec: it does not get one.
    expect(roles.gateway?.pods[0]?.env.AUTH_STATE_KEY).toBeUndefined();
    expect(roles.session?.ready).toEqual({ path: "/healthz", port: 8082 });
    expect(roles.gateway?.ready).toEqual({ path: "/readyz", port: 8080 });
    expect(sharedEnv(objects).KEY_PREFIX).toBe("gw:");
  });

  it("follows a value changed in a values override file", () => {
    const file = join(tmp, "override.yaml");
    writeFileSync(
      file,
      "config:\n  OWNER_WAIT_MS: '1234'\n  KEY_PREFIX: 'other:'\nsession:\n  leaseTtlMs: 2500\n  capacity: 77\nworker:\n  dispatchConcurrency: 3\n",
    );
    const roles = roleSpecs(renderManifests({ set: SECRETS, valuesFiles: [file] }));
    const session = roles.session?.pods[0]?.env ?? {};
    expect(session.LEASE_TTL_MS).toBe("2500");
    expect(session.SESSION_CAPACITY).toBe("77");
    expect(session.OWNER_WAIT_MS).toBe("1234");
    expect(roles.gateway?.pods[0]?.env.KEY_PREFIX).toBe("other:");
    expect(roles.worker?.pods[0]?.env.DISPATCH_CONCURRENCY).toBe("3");
  });

  it("overrides only the listed variables", () => {
    const roles = roleSpecs(renderManifests({ set: SECRETS }));
    const rendered = roles.session?.pods[0]?.env ?? {};
    const local = withOverrides("session", rendered, { session: 40001 });
    const changed = Object.keys(local).filter((k) => local[k] !== rendered[k]);
    expect(changed.sort()).toEqual(OVERRIDES.session.map((o) => o.name).sort());
    expect(local.SESSION_ADVERTISE_URL).toBe("http://127.0.0.1:40001");
    expect(local.POD_ID).toBe(rendered.POD_ID);
  });
});

describe("containerEnv", () => {
  const objects: K8sObject[] = [
    { kind: "ConfigMap", metadata: { name: "cm" }, data: { A: "1", B: "from-cm" } },
    { kind: "Secret", metadata: { name: "s" }, data: { K: Buffer.from("secret").toString("base64") } },
  ];
  it("applies envFrom first, env in order, $(VAR) expansion, and skips optional missing refs", () => {
    const env = containerEnv(
      {
        name: "c",
        envFrom: [{ configMapRef: { name: "cm" } }],
        env: [
          { name: "B", value: "own" },
          { name: "URL", value: "http://$(POD)/$(A)/$(MISSING)/$$(A)" },
          { name: "POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
          { name: "K", valueFrom: { secretKeyRef: { name: "s", key: "K" } } },
          { name: "OPT", valueFrom: { secretKeyRef: { name: "s", key: "NONE", optional: true } } },
        ],
      },
      { objects, podName: "p-0" },
    );
    // POD is defined after URL, so URL keeps $(POD) (as in Kubernetes).
    expect(env).toEqual({ A: "1", B: "own", URL: "http://$(POD)/1/$(MISSING)/$(A)", POD: "p-0", K: "secret" });
  });
  it("refuses a required reference to something not rendered", () => {
    expect(() =>
      containerEnv(
        { name: "c", env: [{ name: "X", valueFrom: { secretKeyRef: { name: "s", key: "NONE" } } }] },
        { objects, podName: "p" },
      ),
    ).toThrow(/not rendered/);
  });
});
