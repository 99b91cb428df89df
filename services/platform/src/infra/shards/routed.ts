import { ApiError } from "@gw/contracts";
import { exists, getKeyIndexes } from "@ioredis/commands";
import type { Redis } from "ioredis";
import type { ShardDirectory } from "./directory.ts";
import { routeOfKey } from "./families.ts";

/**
 * 503 with Retry-After for the seconds an instance's keys are copied to another shard
 * (move.ts). Named so that background roles take it as "unreachable now, retry"
 * (infra/unavailable.ts), as they do a Redis restart.
 */
export class InstanceMovingError extends ApiError {
  constructor(instanceId: string) {
    super(
      "network_unavailable",
      `A instância ${instanceId} está sendo movida para outro shard; tente de novo em instantes.`,
      undefined,
      2,
    );
    this.name = "InstanceMovingError";
  }
}

/** What routing needs: the key prefix, one client per shard (0 = control) and the directory. */
export interface ShardRouting {
  prefix: string;
  clients: Redis[];
  directory: ShardDirectory;
}

type Arg = string | number | Buffer;

/** ioredis takes arrays and objects (`hset(key, {…})`, `del([a, b])`): the flat arguments Redis gets. */
function flat(args: unknown[]): Arg[] {
  const out: Arg[] = [];
  for (const a of args) {
    if (typeof a === "function") continue; // a callback
    if (Array.isArray(a)) out.push(...flat(a));
    else if (a instanceof Map) for (const [k, v] of a) out.push(k as Arg, v as Arg);
    else if (a !== null && typeof a === "object" && !Buffer.isBuffer(a)) {
      for (const [k, v] of Object.entries(a)) out.push(k, v as Arg);
    } else out.push(a as Arg);
  }
  return out;
}

/** The keys of a command (module commands too: JSON.* name their key first, FT.* an index). */
function keysOf(name: string, args: Arg[], scripts: Map<string, number | undefined>): string[] {
  const lower = name.toLowerCase();
  let idx: number[];
  if (scripts.has(lower)) {
    const fixed = scripts.get(lower);
    const n = fixed ?? Number(args[0]);
    const from = fixed === undefined ? 1 : 0;
    idx = Array.from({ length: n }, (_, i) => from + i);
  } else if (lower.startsWith("json.")) {
    idx = lower === "json.mget" ? args.slice(0, -1).map((_, i) => i) : [0];
  } else if (exists(lower)) {
    try {
      idx = getKeyIndexes(lower, args);
    } catch {
      idx = [];
    }
  } else idx = [];
  return idx.map((i) => String(args[i]));
}

/**
 * The shard a command's keys live on: that of its instance keys, with local keys following them;
 * control (0) for control keys and for commands without an instance key. A command whose keys
 * are on two shards is a bug of its caller (a script must not span instances of two shards):
 * it throws rather than run half.
 */
export function shardOfKeys(r: ShardRouting, keys: readonly string[]): number {
  let shard = -1;
  let first = "";
  for (const key of keys) {
    const route = routeOfKey(r.prefix, key);
    if (route.scope === "local") continue;
    let s = 0;
    if (route.instanceId !== undefined) {
      if (r.directory.phase(route.instanceId) === "copy") throw new InstanceMovingError(route.instanceId);
      s = r.directory.of(route.instanceId);
    }
    if (shard < 0) {
      shard = s;
      first = key;
    } else if (s !== shard) {
      throw new Error(`keys of two shards in one command: ${first} (shard ${shard}), ${key} (shard ${s})`);
    }
  }
  return Math.max(shard, 0);
}

/**
 * A command's promise, also when routing it fails (a moving instance, keys of two shards): as a
 * rejection, like any command's failure — never a synchronous throw that a caller's `.catch`
 * would not see.
 */
function settled(run: () => unknown): unknown {
  try {
    return run();
  } catch (err) {
    return Promise.reject(err);
  }
}

/** Names that look like commands but are the client's own: they stay on the control client. */
const CLIENT_OWN = new Set([
  "quit",
  "disconnect",
  "connect",
  "duplicate",
  "subscribe",
  "psubscribe",
  "unsubscribe",
  "monitor",
]);

/**
 * A client with ioredis's interface that sends each command to the shard of its keys
 * (families.ts): the stores written for one Redis run unchanged on many. Scripts defined through
 * it are defined on every shard; pipelines are split by shard and their replies put back in
 * order; a transaction (MULTI) must stay on one shard. Anything else (events, status, options)
 * is the control client's.
 */
export function routedRedis(r: ShardRouting): Redis {
  const control = r.clients[0]!;
  const scripts = new Map<string, number | undefined>();
  const clientFor = (name: string, args: unknown[]): Redis =>
    r.clients[shardOfKeys(r, keysOf(name, flat(args), scripts))]!;
  const isCommand = (name: string) => !CLIENT_OWN.has(name) && (scripts.has(name.toLowerCase()) || exists(name));

  return new Proxy(control, {
    get(target, prop) {
      if (typeof prop === "string") {
        if (prop === "defineCommand") {
          return (name: string, def: { lua: string; numberOfKeys?: number }) => {
            scripts.set(name.toLowerCase(), def.numberOfKeys);
            for (const c of r.clients) c.defineCommand(name, def);
          };
        }
        if (prop === "pipeline" || prop === "multi")
          return () => routedPipeline(clientFor, isCommand, prop === "multi");
        if (prop === "call") {
          return (name: string, ...args: unknown[]) =>
            settled(() => clientFor(name, args).call(name, ...(args as Arg[])));
        }
        if (isCommand(prop)) {
          return (...args: unknown[]) =>
            settled(() => {
              const c = clientFor(prop, args) as unknown as Record<string, (...a: unknown[]) => unknown>;
              return c[prop]!(...args);
            });
        }
      }
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === "function" ? v.bind(target) : v;
    },
  }) as Redis;
}

type Queued = { name: string; args: unknown[] };
type Reply = [Error | null, unknown];

/** A pipeline (or transaction) that records its commands and runs them on their shards at exec. */
function routedPipeline(
  clientFor: (name: string, args: unknown[]) => Redis,
  isCommand: (name: string) => boolean,
  transaction: boolean,
): unknown {
  const queued: Queued[] = [];
  const exec = async (): Promise<Reply[] | null> => {
    const groups = new Map<Redis, number[]>();
    queued.forEach((q, i) => {
      const [name, args] = q.name === "call" ? [String(q.args[0]), q.args.slice(1)] : [q.name, q.args];
      const client = clientFor(name, args);
      const list = groups.get(client);
      if (list) list.push(i);
      else groups.set(client, [i]);
    });
    if (transaction && groups.size > 1) throw new Error("a transaction over keys of two shards");
    const out: Reply[] = new Array(queued.length);
    let aborted = false;
    await Promise.all(
      [...groups].map(async ([client, indexes]) => {
        const p = (transaction ? client.multi() : client.pipeline()) as unknown as Record<
          string,
          (...a: unknown[]) => unknown
        >;
        for (const i of indexes) p[queued[i]!.name]!(...queued[i]!.args);
        const replies = (await (p.exec as () => Promise<Reply[] | null>)()) ?? null;
        if (replies === null) aborted = true;
        else for (const [j, i] of indexes.entries()) out[i] = replies[j]!;
      }),
    );
    return aborted ? null : out;
  };
  const proxy: unknown = new Proxy(
    {},
    {
      get(_, prop) {
        if (prop === "exec") return exec;
        if (prop === "length") return queued.length;
        if (typeof prop === "string" && (prop === "call" || isCommand(prop))) {
          return (...args: unknown[]) => {
            queued.push({ name: prop, args });
            return proxy;
          };
        }
        return undefined;
      },
    },
  );
  return proxy;
}
