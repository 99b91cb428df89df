import { type AuthStateStore, StaleLeaseError } from "@gw/platform";
import {
  type AuthenticationCreds,
  type AuthenticationState,
  BufferJSON,
  type CacheStore,
  initAuthCreds,
  makeCacheableSignalKeyStore,
  proto,
  type SignalDataSet,
  type SignalDataTypeMap,
  type SignalKeyStore,
} from "@whiskeysockets/baileys";

/** Baileys' logger interface (not re-exported from the package root). */
export type BaileysLogger = NonNullable<Parameters<typeof makeCacheableSignalKeyStore>[1]>;

/**
 * A size-bounded in-memory cache with a TTL, satisfying Baileys' `CacheStore`. Least recently
 * used entries go first. Setting `null`/`undefined` deletes (Baileys' cacheable key store writes
 * the `null` of a key deletion into its cache; keeping it would answer `null` from memory).
 */
export class BoundedCache implements CacheStore {
  private readonly entries = new Map<string, { value: unknown; expires: number }>();

  constructor(
    readonly maxEntries: number,
    readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    if (maxEntries < 1) throw new Error("BoundedCache: maxEntries must be at least 1");
  }

  get size(): number {
    return this.entries.size;
  }

  get<T>(key: string): T | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expires <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    // Re-insert: Map order is recency order.
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.value as T;
  }

  set<T>(key: string, value: T): boolean {
    this.entries.delete(key);
    if (value === null || value === undefined) return true;
    this.entries.set(key, { value, expires: this.now() + this.ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
    return true;
  }

  del(key: string): boolean {
    return this.entries.delete(key);
  }

  flushAll(): void {
    this.entries.clear();
  }
}

export interface RedisAuthStateOptions {
  /** Baileys' logger (trace lines of the cacheable store). */
  logger?: BaileysLogger;
  /** Bound of the signal-key cache (entries; default 1000) and its TTL (default 5 min). */
  cacheMaxEntries?: number;
  cacheTtlMs?: number;
  /**
   * Called once per write refused because the lease epoch is no longer ours. The error still
   * propagates to the caller (Baileys, `saveCreds`); this lets the session stop at once
   * instead of waiting for Baileys' commit retries to give up.
   */
  onStaleLease?: (err: StaleLeaseError) => void;
}

export interface RedisAuthState {
  state: AuthenticationState;
  /** Writes the whole `state.creds` (Baileys mutates that object in place on `creds.update`). */
  saveCreds(): Promise<void>;
  /** Forgets the pairing: creds and every key type, and the in-memory cache. */
  clear(): Promise<void>;
}

export const serialize = (value: unknown): string => JSON.stringify(value, BufferJSON.replacer);
export const deserialize = <T>(text: string): T => JSON.parse(text, BufferJSON.reviver) as T;

/**
 * Creds as stored by {@link serialize}. `creds.account` is a protobufjs message (pair-success
 * decodes it), and protobufjs' `toJSON` turns its bytes into base64 strings before the
 * BufferJSON replacer sees them; `fromObject` turns them back into bytes, so the account comes
 * back as the proto instance it was (Baileys' own file store leaves the strings).
 */
export function deserializeCreds(text: string): AuthenticationCreds {
  const creds = deserialize<AuthenticationCreds>(text);
  if (creds.account) {
    creds.account = proto.ADVSignedDeviceIdentity.fromObject(creds.account as Record<string, unknown>);
  }
  return creds;
}

/**
 * The raw (uncached) signal key store on the fenced Redis store: values are BufferJSON text,
 * `app-state-sync-key` comes back as a proto instance, and a `set` — whatever types it spans —
 * is one atomic fenced commit (`AuthStateStore.setKeys`), which is what Baileys'
 * `keys.transaction` needs: a commit is applied entirely or not at all.
 */
export function makeRedisKeyStore(store: AuthStateStore, onStale?: (err: StaleLeaseError) => void): SignalKeyStore {
  return {
    async get<T extends keyof SignalDataTypeMap>(type: T, ids: string[]) {
      const raw = await store.getKeys(type, ids);
      const out: { [id: string]: SignalDataTypeMap[T] } = {};
      for (const [id, text] of Object.entries(raw)) {
        let value: unknown = deserialize(text);
        if (type === "app-state-sync-key" && value) {
          value = proto.Message.AppStateSyncKeyData.fromObject(value as Record<string, unknown>);
        }
        out[id] = value as SignalDataTypeMap[T];
      }
      return out;
    },
    async set(data: SignalDataSet) {
      const ops: Record<string, Record<string, string | null>> = {};
      for (const [type, values] of Object.entries(data)) {
        if (!values) continue;
        const typeOps: Record<string, string | null> = {};
        for (const [id, value] of Object.entries(values)) {
          typeOps[id] = value === null || value === undefined ? null : serialize(value);
        }
        ops[type] = typeOps;
      }
      try {
        await store.setKeys(ops);
      } catch (err) {
        if (err instanceof StaleLeaseError) onStale?.(err);
        throw err;
      }
    },
    async clear() {
      await store.clear();
    },
  };
}

/**
 * Baileys auth state on the instance's fenced, sealed Redis store (reference §2.3).
 *
 * Keys are cached in memory in front of Redis (`makeCacheableSignalKeyStore` with a bounded
 * cache). That is correct because only the lease holder writes: a pod that lost the lease gets
 * StaleLeaseError on its next write and stops. When a write fails the cache is flushed, since
 * Baileys' cacheable store fills the cache before it writes through.
 */
export async function useRedisAuthState(
  store: AuthStateStore,
  opts: RedisAuthStateOptions = {},
): Promise<RedisAuthState> {
  const raw = await store.readCreds();
  const creds: AuthenticationCreds = raw === null ? initAuthCreds() : deserializeCreds(raw);

  let staleReported = false;
  const onStale = (err: StaleLeaseError) => {
    if (staleReported) return;
    staleReported = true;
    opts.onStaleLease?.(err);
  };

  const cache = new BoundedCache(opts.cacheMaxEntries ?? 1_000, opts.cacheTtlMs ?? 5 * 60_000);
  const cached = makeCacheableSignalKeyStore(makeRedisKeyStore(store, onStale), opts.logger, cache);
  const keys: SignalKeyStore = {
    get: (type, ids) => cached.get(type, ids),
    async set(data) {
      try {
        await cached.set(data);
      } catch (err) {
        cache.flushAll();
        throw err;
      }
    },
    async clear() {
      cache.flushAll();
      await store.clear();
    },
  };

  return {
    state: { creds, keys },
    async saveCreds() {
      try {
        await store.writeCreds(serialize(creds));
      } catch (err) {
        if (err instanceof StaleLeaseError) onStale(err);
        throw err;
      }
    },
    async clear() {
      cache.flushAll();
      try {
        await store.clear();
      } catch (err) {
        if (err instanceof StaleLeaseError) onStale(err);
        throw err;
      }
    },
  };
}
