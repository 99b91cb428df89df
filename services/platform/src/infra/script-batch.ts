import type { Redis } from "ioredis";
import { TurnBatcher } from "./turn-batch.ts";

/** One operation of a batch: a registered script, its keys and its arguments. */
interface Call {
  op: Operation;
  keys: string[];
  args: (string | number)[];
}

interface Operation {
  /** 1-based index in the batch script's `ops` table. */
  index: number;
  name: string;
  keys: number;
  args: number;
}

/** At most this many operations in one script run: Redis runs a script without interleaving anything. */
const MAX_CALLS = 48;

/**
 * The small writes of one event-loop turn, run by one script call. Stores register their Lua
 * scripts here (a body written as a standalone script: it reads `KEYS` and `ARGV` and returns a
 * value), each with its fixed number of keys and arguments, and call them through {@link run};
 * what every store asked for during a turn then leaves in one `EVALSHA`, runs in the order it was
 * asked, and each caller gets its own result.
 *
 * Why: on the machines we measure on, every command a client sends costs Redis and the client
 * far more than the command's own work (the round trip, the reply, a promise and a command object
 * per call; `pnpm bench send`, docs/benchmarks.md). A send is recorded by five writes (the kept
 * message, two events, the read model's message and chat) and each ack by two; under load the
 * sends of a turn share one call instead of several each. A lone write waits only for the end of
 * its own loop turn, as with the request path's auth (auth/authorizer.ts).
 *
 * Inside Redis the batch is lean on purpose: Lua's own work (every argument becomes a Lua
 * string, every table an allocation, every global a guarded lookup) was over half of Redis's time
 * per send. So an operation's header is its index alone (its key and argument counts are known),
 * its keys and arguments are sliced with `unpack`, the globals the scripts use are upvalues, and
 * helpers several scripts share are defined once per call ({@link share}).
 *
 * Each operation runs protected (`pcall`): one that fails rejects its own caller only.
 */
export class ScriptBatch {
  private readonly ops = new Map<string, Operation>();
  private readonly bodies: string[] = [];
  private readonly shared = new Set<string>();
  private sealed = false;
  private readonly batcher = new TurnBatcher<Call, unknown>((calls) => this.exec(calls), MAX_CALLS);
  /** Script calls made so far, and the operations they carried (batching at work: operations / calls). */
  readonly stats = { calls: 0, operations: 0 };

  /**
   * `shardOf`: on a sharded deployment, the shard of an operation's keys (infra/shards/): a turn's
   * operations leave in one script call per shard, since a script runs on one Redis.
   */
  constructor(
    private readonly redis: Redis,
    private readonly shardOf?: (keys: readonly string[]) => number,
  ) {}

  /**
   * Registers `lua` under `name`, taking exactly `keys` keys and `args` arguments (before the
   * first run). Registering the same name twice keeps the first.
   */
  register(name: string, lua: string, arity: { keys: number; args: number }): void {
    if (this.ops.has(name)) return;
    this.assertOpen(name);
    this.bodies.push(lua);
    this.ops.set(name, { index: this.bodies.length, name, ...arity });
  }

  /** Lua definitions (helper functions) that scripts registered here use: defined once, before them. */
  share(lua: string): void {
    if (this.shared.has(lua)) return;
    this.assertOpen("shared helpers");
    this.shared.add(lua);
  }

  private assertOpen(what: string): void {
    if (this.sealed) throw new Error(`script batch: ${what} registered after the first run`);
  }

  /** Runs the registered script `name` with `keys` and `args`, in this turn's batch. */
  run(name: string, keys: string[], args: (string | number)[]): Promise<unknown> {
    const op = this.ops.get(name);
    if (op === undefined) return Promise.reject(new Error(`script batch: no script ${name}`));
    if (keys.length !== op.keys || args.length !== op.args) {
      return Promise.reject(
        new Error(
          `script batch: ${name} takes ${op.keys} keys and ${op.args} args, got ${keys.length} and ${args.length}`,
        ),
      );
    }
    if (!this.sealed) this.seal();
    return this.batcher.add({ op, keys, args }).then((out) => {
      if (out instanceof Error) throw out;
      return out;
    });
  }

  /**
   * Defines the script on the client; registering ends here. Call it once every store has
   * registered, before the client is in use: ioredis gives a command to the auto-pipelines it
   * creates afterwards only, so a lazy definition at the first run fails in a turn whose
   * pipeline already exists. (A first run seals it too.)
   */
  seal(): void {
    if (this.sealed) return;
    this.sealed = true;
    const arity = [...this.ops.values()]
      .sort((a, b) => a.index - b.index)
      .map((o) => `{${o.keys}, ${o.args}}`)
      .join(", ");
    const ops = this.bodies.map((lua, i) => `ops[${i + 1}] = function(KEYS, ARGV)\n${lua}\nend`).join("\n");
    const lua = [PRELUDE, ...this.shared, `local arity = {${arity}}`, "local ops = {}", ops, DISPATCH].join("\n");
    // No fixed key count: each call passes its own (EVALSHA sha numkeys …).
    this.redis.defineCommand("gwBatch", { lua });
  }

  private async exec(calls: Call[]): Promise<unknown[]> {
    if (!this.shardOf) return this.execOne(calls);
    const groups = new Map<number, number[]>();
    const out: unknown[] = new Array(calls.length);
    calls.forEach((c, i) => {
      try {
        const shard = this.shardOf!(c.keys);
        const list = groups.get(shard);
        if (list) list.push(i);
        else groups.set(shard, [i]);
      } catch (err) {
        out[i] = err instanceof Error ? err : new Error(String(err)); // a moving instance: its caller only
      }
    });
    await Promise.all(
      [...groups.values()].map(async (indexes) => {
        try {
          const replies = await this.execOne(indexes.map((i) => calls[i]!));
          for (const [j, i] of indexes.entries()) out[i] = replies[j];
        } catch (err) {
          for (const i of indexes) out[i] = err instanceof Error ? err : new Error(String(err));
        }
      }),
    );
    return out;
  }

  private async execOne(calls: Call[]): Promise<unknown[]> {
    const keys: string[] = [];
    const argv: (string | number)[] = [];
    for (const c of calls) {
      argv.push(c.op.index);
      for (const k of c.keys) keys.push(k);
    }
    for (const c of calls) for (const a of c.args) argv.push(a);
    this.stats.calls++;
    this.stats.operations += calls.length;
    const batch = this.redis as Redis & { gwBatch(...args: (string | number)[]): Promise<unknown[]> };
    return batch.gwBatch(keys.length, ...keys, calls.length, ...argv);
  }
}

/**
 * The globals the scripts use, as upvalues of the batch's chunk: a global read in Redis's Lua is a
 * table lookup through its read-only guard, an upvalue read is not.
 */
const PRELUDE =
  "local redis, tonumber, tostring, type, pcall, unpack, ipairs, cjson, string, table, math = " +
  "redis, tonumber, tostring, type, pcall, unpack, ipairs, cjson, string, table, math";

/**
 * KEYS: every call's keys, in order. ARGV: n, then each call's operation index, then every call's
 * args, in order. Reply: one value per call (nil as false; an error as an error reply in its place).
 */
const DISPATCH = `
local n = tonumber(ARGV[1])
local ka, aa = 1, 2 + n
local out = {}
for c = 1, n do
  local op = tonumber(ARGV[1 + c])
  local a = arity[op]
  local nk, na = a[1], a[2]
  local keys = nk > 0 and { unpack(KEYS, ka, ka + nk - 1) } or {}
  local args = na > 0 and { unpack(ARGV, aa, aa + na - 1) } or {}
  ka = ka + nk
  aa = aa + na
  local ok, res = pcall(ops[op], keys, args)
  if not ok then
    out[c] = { err = type(res) == 'table' and res.err or tostring(res) }
  elseif res == nil then
    out[c] = false
  else
    out[c] = res
  end
end
return out
`;
