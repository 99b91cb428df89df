import {
  ApiError,
  type BillingInput,
  type ConnectionStatus,
  type CreateInstanceInput,
  DEFAULT_SETTINGS,
  type Instance,
  invalid,
  type Provider,
  type SettingsPatch,
  type UpdateInstanceInput,
} from "@gw/contracts";
import type { Redis } from "ioredis";
import { clearAuthStateUnowned, StaleLeaseError } from "../auth/auth-state.ts";
import { hashToken, newSecretToken } from "../auth/secrets.ts";
import type { CloudCredentialStore } from "../cloud/credentials.ts";
import { newInstanceId } from "../infra/ids.ts";
import type { Invalidations } from "../infra/invalidations.ts";
import type { Keys } from "../infra/keys.ts";
import type { AccountStore } from "./accounts.ts";
import type { Repositories } from "./repositories.ts";

const SET_CONNECTION = `
if ARGV[1] ~= '' then
  local v = redis.call('GET', KEYS[1])
  if not v or string.match(v, '|(%d+)$') ~= ARGV[1] then return redis.error_reply('STALE') end
end
local prev = redis.call('JSON.GET', KEYS[2], '$.connectionStatus', '$.statusReason')
if not prev then return nil end
for path, value in pairs(cjson.decode(ARGV[2])) do redis.call('JSON.SET', KEYS[2], path, value) end
return prev`;

/** What is stored: the public resource plus a sortable creation time. */
type InstanceDoc = Instance & { createdAtMs: number };

const DEFAULT_PROVIDER = { standard: "baileys", official: "cloud" } as const;
const PROVIDERS_OF_KIND = { standard: ["baileys", "sim"], official: ["cloud"] } as const;

export interface InstanceStoreOptions {
  trialDays: number;
  simProviderEnabled: boolean;
  /** A new instance's id; on a sharded deployment it names the shard it goes to (infra/shards/). */
  newId?: () => Promise<string>;
}

export class InstanceStore {
  constructor(
    private readonly redis: Redis,
    private readonly repos: Repositories,
    private readonly accounts: AccountStore,
    private readonly k: Keys,
    private readonly invalidations: Invalidations,
    private readonly opts: InstanceStoreOptions,
    private readonly cloud: CloudCredentialStore,
    /** What else goes with a deleted instance (its media in the media store). */
    private readonly onDeleted?: (id: string) => Promise<unknown>,
  ) {}

  async create(input: CreateInstanceInput): Promise<{ instance: Instance; token: string }> {
    const provider: Provider = input.provider ?? DEFAULT_PROVIDER[input.kind];
    if (!(PROVIDERS_OF_KIND[input.kind] as readonly Provider[]).includes(provider)) {
      throw invalid(
        "provider",
        `instâncias ${input.kind} aceitam: ${PROVIDERS_OF_KIND[input.kind].join(", ")}`,
        "Provedor incompatível com o tipo de instância.",
      );
    }
    if (provider === "sim" && !this.opts.simProviderEnabled) {
      throw invalid(
        "provider",
        "sim só é aceito onde a rede simulada roda (ENABLE_SIM_PROVIDER)",
        "A rede simulada não está habilitada neste ambiente.",
      );
    }
    if (input.cloud && input.kind !== "official") {
      throw invalid("cloud", "credenciais do operador só em instâncias official");
    }
    const id = this.opts.newId ? await this.opts.newId() : newInstanceId();
    // The operator's number first: one that another instance runs is refused before anything exists.
    const cloud = input.cloud ? await this.cloud.set(id, input.cloud) : null;
    const accountId = input.accountId ?? (await this.accounts.create({ name: input.name })).id;
    if (input.accountId) await this.accounts.get(input.accountId); // 404 when unknown
    const first = (await this.accounts.countInstanceCreation(accountId)) === 1;

    const now = new Date();
    const trial = first && (input.billingStatus === undefined || input.billingStatus === "trialing");
    const doc: InstanceDoc = {
      id,
      name: input.name,
      accountId,
      kind: input.kind,
      phone: "",
      pushName: "",
      provider,
      connectionStatus: "STOPPED",
      billingStatus: input.billingStatus ?? (trial ? "trialing" : "active"),
      cancelAtPeriodEnd: false,
      currentPeriodEnd: null,
      graceUntil: null,
      provisionedAt: input.provisioned ? now.toISOString() : null,
      createdAt: now.toISOString(),
      suspendedAt: input.billingStatus === "suspended" ? now.toISOString() : null,
      trialEndsAt: trial ? new Date(now.getTime() + this.opts.trialDays * 86_400_000).toISOString() : null,
      settings: structuredClone(DEFAULT_SETTINGS),
      ...(input.kind === "official" ? { cloud } : {}),
      createdAtMs: now.getTime(),
    };
    const token = newSecretToken("gwt");
    await this.repos.instances.save(doc.id, doc);
    // The auth hash is written last: a token can only open an instance that fully exists.
    await this.redis.hset(this.k.instanceAuth(doc.id), { tokenHash: hashToken(token), accountId });
    return { instance: toInstance(doc), token };
  }

  /**
   * Straight from Redis; the request path uses {@link InstanceCache}. One `JSON.GET` of the whole
   * document on the auto-pipelined connection: redis-om's `fetch` (the same read on its own
   * client, then a deep clone and a JSONPath walk per schema field) was ~5 % of the pod's and
   * ~4 % of the gateway's CPU in `pnpm bench send` (every cached instance reloads each
   * INSTANCE_CACHE_MS). The schema's fields are written with their types, so nothing converts.
   */
  async get(id: string): Promise<Instance | null> {
    const raw = (await this.redis.call("JSON.GET", this.k.instanceDoc(id))) as string | null;
    if (raw === null) return null;
    const doc = JSON.parse(raw) as InstanceDoc;
    return typeof doc.id === "string" ? toInstance(doc) : null;
  }

  async require(id: string): Promise<Instance> {
    const instance = await this.get(id);
    if (!instance) throw new ApiError("not_found", "Instância não encontrada.");
    return instance;
  }

  async list(q: { accountId?: string | undefined; limit: number; cursor?: string | undefined }) {
    let search = this.repos.instances.search();
    if (q.accountId) search = search.where("accountId").equals(q.accountId);
    const offset = Number(q.cursor ?? 0);
    const docs = await search.sortAscending("createdAtMs").page(offset, q.limit + 1);
    const more = docs.length > q.limit;
    return {
      data: docs.slice(0, q.limit).map((d) => toInstance(d as unknown as InstanceDoc)),
      nextCursor: more ? String(offset + q.limit) : null,
    };
  }

  async delete(id: string): Promise<void> {
    await this.require(id);
    // Auth first: from this moment no request can open the instance. Removing the lease makes
    // its owner's next renewal fail, which closes the connection.
    await this.redis.del(this.k.instanceAuth(id), this.k.rateLimit(id), this.k.lease(id));
    await this.redis.srem(this.k.running, id);
    await clearAuthStateUnowned(this.redis, this.k, id);
    await this.cloud.delete(id);
    await this.repos.instances.remove(id);
    await this.invalidate(id);
    // Last, after the instance is gone for every request: nothing can add media meanwhile.
    await this.onDeleted?.(id);
  }

  /** A new token; the old one stops working at once on every replica (auth is read per request). */
  async rotateToken(id: string): Promise<string> {
    await this.require(id);
    const token = newSecretToken("gwt");
    await this.redis.hset(this.k.instanceAuth(id), "tokenHash", hashToken(token));
    return token;
  }

  /** The operator's control plane: name, and an official instance's credentials (rotation). */
  async update(input: UpdateInstanceInput): Promise<Instance> {
    const current = await this.require(input.instanceId);
    const sets: [string, unknown][] = [];
    if (input.name !== undefined) sets.push(["$.name", input.name]);
    if (input.cloud) {
      if (current.kind !== "official") {
        throw invalid("cloud", "credenciais do operador só em instâncias official");
      }
      const cloud = await this.cloud.set(current.id, input.cloud);
      // Not XX: instances made before credentials existed have no `cloud` yet.
      await this.redis.call("JSON.SET", this.k.instanceDoc(current.id), "$.cloud", JSON.stringify(cloud));
      if (sets.length === 0) await this.invalidate(current.id);
    }
    return this.setFields(current.id, sets);
  }

  async updateSettings(id: string, patch: SettingsPatch): Promise<Instance> {
    const sets: [string, unknown][] = [];
    for (const group of ["client", "ignore", "storage"] as const) {
      for (const [field, value] of Object.entries(patch[group] ?? {})) {
        if (value !== undefined) sets.push([`$.settings.${group}.${field}`, value]);
      }
    }
    return this.setFields(id, sets);
  }

  async setBilling(id: string, b: BillingInput): Promise<Instance> {
    const current = await this.require(id);
    const sets: [string, unknown][] = [["$.billingStatus", b.billingStatus]];
    for (const f of ["cancelAtPeriodEnd", "currentPeriodEnd", "graceUntil", "trialEndsAt"] as const) {
      const v = b[f];
      if (v !== undefined) sets.push([`$.${f}`, typeof v === "string" ? new Date(v).toISOString() : v]);
    }
    if (b.billingStatus === "suspended" && current.billingStatus !== "suspended") {
      sets.push(["$.suspendedAt", new Date().toISOString()]);
    } else if (b.billingStatus !== "suspended") {
      sets.push(["$.suspendedAt", null]);
    }
    return this.setFields(id, sets);
  }

  async setProvisioned(id: string, provisioned: boolean): Promise<Instance> {
    const current = await this.require(id);
    const at = provisioned ? (current.provisionedAt ?? new Date().toISOString()) : null;
    return this.setFields(id, [["$.provisionedAt", at]]);
  }

  /**
   * Field-level JSON.SET in one MULTI: concurrent patches of different fields never undo each
   * other (no read-modify-write of the document).
   */
  private async setFields(id: string, sets: [string, unknown][]): Promise<Instance> {
    const key = this.k.instanceDoc(id);
    if (sets.length > 0) {
      const multi = this.redis.multi();
      for (const [path, value] of sets) multi.call("JSON.SET", key, path, JSON.stringify(value), "XX");
      const results = (await multi.exec()) ?? [];
      if (results.some(([err, res]) => err || res === null)) {
        throw new ApiError("not_found", "Instância não encontrada.");
      }
      await this.invalidate(id);
    }
    return this.require(id);
  }

  /**
   * Connection state, written by the instance's owner: fenced by its lease epoch (null only
   * for writers that act while no pod owns the instance, e.g. stop or logout of an idle one).
   * Answers the status before the write, for `session.status`.
   */
  async setConnection(
    id: string,
    epoch: number | null,
    fields: Partial<Pick<Instance, "connectionStatus" | "phone" | "pushName" | "statusReason">>,
  ): Promise<{ previous: ConnectionStatus; previousReason: string | null; instance: Instance }> {
    const paths = Object.fromEntries(Object.entries(fields).map(([f, v]) => [`$.${f}`, JSON.stringify(v)]));
    const prev = await this.redis
      .eval(
        SET_CONNECTION,
        2,
        this.k.lease(id),
        this.k.instanceDoc(id),
        epoch === null ? "" : String(epoch),
        JSON.stringify(paths),
      )
      .catch((err: Error) => {
        if (err.message.includes("STALE")) throw new StaleLeaseError(id);
        throw err;
      });
    if (prev === null) throw new ApiError("not_found", "Instância não encontrada.");
    await this.invalidate(id);
    // JSON.GET of two paths: {"$.connectionStatus": [status], "$.statusReason": [reason or null]} (older documents lack the second).
    const before = JSON.parse(String(prev)) as Record<string, unknown[]>;
    const reason = before["$.statusReason"]?.[0] as { reason?: unknown } | null | undefined;
    return {
      previous: (before["$.connectionStatus"]?.[0] as ConnectionStatus | undefined) ?? "STOPPED",
      previousReason: typeof reason?.reason === "string" ? reason.reason : null,
      instance: await this.require(id),
    };
  }

  private invalidate(id: string) {
    return this.invalidations.announce("instance", id);
  }
}

function toInstance(doc: InstanceDoc): Instance {
  const { createdAtMs: _, ...instance } = doc;
  return instance;
}

/** Blocks use of an instance that is not provisioned (409) or whose billing is not active (402). */
export function usabilityError(instance: Instance, now = Date.now()): ApiError | null {
  if (!instance.provisionedAt) return new ApiError("instance_not_provisioned");
  const until = (iso: string | null) => (iso ? Date.parse(iso) : Number.NEGATIVE_INFINITY);
  switch (instance.billingStatus) {
    case "active":
      return null;
    case "trialing":
      return until(instance.trialEndsAt) > now
        ? null
        : new ApiError("payment_required", "O período de teste terminou.");
    case "past_due":
      return until(instance.graceUntil) > now ? null : new ApiError("payment_required", "Pagamento em atraso.");
    default:
      return new ApiError("payment_required");
  }
}
