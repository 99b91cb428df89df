import {
  APP_CONFIGS,
  ApiError,
  type App,
  type AppKind,
  DEFAULT_NUMBER_RULES,
  invalid,
  invalidFields,
  type NumberRules,
} from "@gw/contracts";
import type { Redis } from "ioredis";
import type { z } from "zod";
import { randomBase32 } from "../infra/ids.ts";
import type { Invalidations } from "../infra/invalidations.ts";
import type { Keys } from "../infra/keys.ts";
import { ReplicaCache } from "../infra/replica-cache.ts";
import { validationDetails } from "../trpc/errors.ts";

/** Apps of which an instance has one at most: their rules would contradict each other (mcp: one server, one tool list). */
const SINGLE: ReadonlySet<AppKind> = new Set([
  "calls",
  "mcp",
  "brazilian-phone-numbers",
  "mexican-phone-numbers",
  "argentine-phone-numbers",
  "phone-numbers",
]);

/**
 * The instance's apps (spec 2.10, docs/apps.md): one HASH per instance, cached per replica (the
 * send path reads the number rules on every send) and invalidated across replicas like the
 * instance record.
 */
export class AppStore {
  private readonly cache: ReplicaCache<App[]>;

  constructor(
    private readonly redis: Redis,
    private readonly k: Keys,
    private readonly invalidations: Invalidations,
    ttlMs: number,
  ) {
    this.cache = new ReplicaCache(ttlMs);
    invalidations.on("apps", (id) => this.cache.forget(id));
  }

  /** Every app of the instance, oldest first. */
  list(instanceId: string): Promise<App[]> {
    return this.cache.get(instanceId, async () => {
      const all = Object.values(await this.redis.hgetall(this.k.apps(instanceId))).map((raw) => JSON.parse(raw) as App);
      return all.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    });
  }

  async get(instanceId: string, appId: string): Promise<App> {
    const raw = await this.redis.hget(this.k.apps(instanceId), appId);
    if (!raw) throw new ApiError("not_found", "App não encontrado.");
    return JSON.parse(raw) as App;
  }

  async create(instanceId: string, input: { app: AppKind; config?: Record<string, unknown>; enabled: boolean }) {
    if (SINGLE.has(input.app) && (await this.list(instanceId)).some((a) => a.app === input.app)) {
      throw invalid("app", `a instância já tem um app ${input.app}; altere-o com PATCH`);
    }
    const now = new Date().toISOString();
    const app: App = {
      id: `app_${randomBase32(20)}`,
      app: input.app,
      config: configOf(input.app, input.config),
      enabled: input.enabled,
      createdAt: now,
      updatedAt: now,
    };
    await this.save(instanceId, app);
    return app;
  }

  async update(instanceId: string, appId: string, patch: { config?: Record<string, unknown>; enabled?: boolean }) {
    const current = await this.get(instanceId, appId);
    const app: App = {
      ...current,
      ...(patch.config !== undefined ? { config: configOf(current.app, patch.config) } : {}),
      ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
      updatedAt: new Date().toISOString(),
    };
    await this.save(instanceId, app);
    return app;
  }

  async delete(instanceId: string, appId: string): Promise<void> {
    await this.get(instanceId, appId);
    await this.redis.hdel(this.k.apps(instanceId), appId);
    await this.invalidations.announce("apps", instanceId);
  }

  /** The enabled app of a kind, if any. */
  async enabled(instanceId: string, kind: AppKind): Promise<App | null> {
    return (await this.list(instanceId)).find((a) => a.app === kind && a.enabled) ?? null;
  }

  /** The phone-number rules of the instance's enabled apps (applied to every send's number). */
  async numberRules(instanceId: string): Promise<NumberRules> {
    const apps = await this.list(instanceId);
    if (apps.length === 0) return DEFAULT_NUMBER_RULES;
    const on = (kind: AppKind) => apps.find((a) => a.app === kind && a.enabled)?.config;
    const br = on("brazilian-phone-numbers") as { ninthDigit?: NumberRules["brazil"] } | undefined;
    const mx = on("mexican-phone-numbers") as { mobileOne?: "add" | "remove" } | undefined;
    const ar = on("argentine-phone-numbers") as { addNine?: boolean } | undefined;
    const pn = on("phone-numbers") as { defaultCountryCode?: string; nationalMaxDigits?: number } | undefined;
    return {
      brazil: br?.ninthDigit ?? "auto",
      mexico: mx?.mobileOne ?? null,
      argentina: ar?.addNine === true,
      defaultCountryCode: pn?.defaultCountryCode ?? null,
      nationalMaxDigits: pn?.nationalMaxDigits ?? DEFAULT_NUMBER_RULES.nationalMaxDigits,
    };
  }

  private async save(instanceId: string, app: App): Promise<void> {
    await this.redis.hset(this.k.apps(instanceId), app.id, JSON.stringify(app));
    await this.invalidations.announce("apps", instanceId);
  }
}

function configOf(kind: AppKind, raw: Record<string, unknown> | undefined): Record<string, unknown> {
  const parsed = (APP_CONFIGS[kind] as z.ZodType).safeParse(raw);
  if (!parsed.success) {
    const details = Object.fromEntries(
      Object.entries(validationDetails(parsed.error)).map(([k, v]) => [`config.${k}`, v]),
    );
    throw invalidFields(Object.keys(details).length ? details : { config: "config inválida" });
  }
  return parsed.data as Record<string, unknown>;
}
