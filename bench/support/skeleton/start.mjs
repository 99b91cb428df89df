// Starts the skeleton's three processes (network, pod, gateway; see bench/skeleton.mjs) on the
// stack's Redis under `prefix`, with `instances` network connections in the pod. Returns the
// gateway's URL and the services (for CPU metering); their keys are deleted at cleanup.
import { join } from "node:path";
import { freePorts, onCleanup, ROOT, spawnService, waitForHttp } from "../../lib.mjs";
import { ACK_DELAY_MS } from "./frames.mjs";

/** Wait after a skeleton run before the next measured run: the acks of its last second arrive meanwhile. */
export const SKELETON_ACK_SETTLE_MS = ACK_DELAY_MS + 500;

export async function startSkeleton({ redis, redisUrl, prefix, instances, nodeFlags = [] }) {
  onCleanup(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
  });
  const [netPort, podPort, gwPort] = await freePorts(3);
  const env = { ...process.env, REDIS_URL: redisUrl, KEY_PREFIX: prefix, NODE_ENV: "production" };
  const start = async (name, port, extra) => {
    let listening;
    const up = new Promise((resolve) => {
      listening = resolve;
    });
    const svc = spawnService({
      name: `skeleton ${name}`,
      command: process.execPath,
      args: [...nodeFlags, join(ROOT, "bench", "support", "skeleton", `${name}.mjs`)],
      env: { ...env, PORT: String(port), ...extra },
      onLine: (line) => line === "listening" && listening(),
    });
    const died = svc.exited.then(() => {
      throw new Error(`skeleton ${name} exited before listening:\n${svc.tail()}`);
    });
    await Promise.race([up, died]);
    return svc;
  };
  const network = await start("network", netPort, {});
  const pod = await start("pod", podPort, { NETWORK_PORT: String(netPort), INSTANCES: String(instances) });
  const gateway = await start("gateway", gwPort, { POD_PORT: String(podPort) });
  const url = `http://127.0.0.1:${gwPort}`;
  await waitForHttp(`${url}/healthz`, { service: gateway });
  return { url, services: [gateway, pod, network] };
}

/** The request autocannon sends to the skeleton for instance `i` (the path carries the instance's index). */
export const skeletonPath = (i) => `/v1/instances/i${String(i).padStart(24, "0")}/messages/text`;
