import { createHash } from "node:crypto";
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
import type { Sealer } from "../auth/sealed.ts";
import { randomBase32 } from "../infra/ids.ts";
import type { Invalidations } from "../infra/invalidations.ts";
import type { Keys } from "../infra/keys.ts";
import { ReplicaCache } from "../infra/replica-cache.ts";
import { validationDetails } from "../trpc/errors.ts";
import { parseTargetUrl } from "../url-guard/urls.ts";

/** Apps of which an instance has one at most: their rules would contradict each other (mcp: one server, one tool list). */
const SINGLE: ReadonlySet<AppKind> = new Set([
  "calls",
  "mcp",
  "brazilian-phone-numbers",
  "mexican-phone-numbers",
  "argentine-phone-numbers",
  "phone-numbers",
]);

/** An app as kept: its secrets (a help desk's token and hook secret) sealed apart from the shown record. */
type StoredApp = App & { sealed?: { token: string; hookSecret: string } };

/** A `helpdesk` app with what the connector needs: the config's token opened. */
export interface HelpdeskApp {
  instanceId: string;
  id: string;
  enabled: boolean;
  config: z.output<(typeof APP_CONFIGS)["helpdesk"]>;
}

/** The path of a help desk's hook; the secret is the only thing that authorizes it. */
export const HELPDESK_HOOK_PATH = "/v1/helpdesk/hooks";
const hashOf = (secret: string) => createHash("sha256").update(secret).digest("hex");

/**
 * The instance's apps (spec 2.10, docs/apps.md): one HASH per instance, cached per replica (the
 * send path reads the number rules on every send) and invalidated across replicas like the
 * instance record.
 */
export class AppStore {
  private readonly cache: ReplicaCache<StoredApp[]>;

  constructor(
    private readonly redis: Redis,
    private readonly k: Keys,
    private readonly invalidations: Invalidations,
    ttlMs: number,
    private readonly sealer: Sealer,
    /** Where the help desk's hook is reached (`PUBLIC_BASE_URL`). */
    private readonly publicBaseUrl: string,
    /** A help desk's `url` may be an internal address (`WEBHOOK_ALLOW_PRIVATE`, as for webhooks). */
    private readonly allowPrivate = false,
  ) {
    this.cache = new ReplicaCache(ttlMs);
    invalidations.on("apps", (id) => this.cache.forget(id));
  }

  /** Every app of the instance, oldest first, as shown. */
  async list(instanceId: string): Promise<App[]> {
    return (await this.stored(instanceId)).map((a) => this.shown(a));
  }

  async get(instanceId: string, appId: string): Promise<App> {
    return this.shown(await this.storedOne(instanceId, appId));
  }

  private stored(instanceId: string): Promise<StoredApp[]> {
    return this.cache.get(instanceId, async () => {
      const all = Object.values(await this.redis.hgetall(this.k.apps(instanceId))).map(
        (raw) => JSON.parse(raw) as StoredApp,
      );
      return all.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    });
  }

  private async storedOne(instanceId: string, appId: string): Promise<StoredApp> {
    const raw = await this.redis.hget(this.k.apps(instanceId), appId);
    if (!raw) throw new ApiError("not_found", "App não encontrado.");
    return JSON.parse(raw) as StoredApp;
  }

  /**
   * A help desk's hook secret, opened once per process: every listing shows it (the intake asks
   * for the enabled app on each read), and it never changes for the app's life.
   */
  private hookSecret(sealed: string): string {
    let open = this.openedHooks.get(sealed);
    if (open === undefined) {
      if (this.openedHooks.size >= 10_000) this.openedHooks.clear();
      open = this.sealer.open(sealed);
      this.openedHooks.set(sealed, open);
    }
    return open;
  }
  private readonly openedHooks = new Map<string, string>();

  /** The record without its secrets; a help desk's hook URL beside it. */
  private shown({ sealed, ...app }: StoredApp): App {
    if (!sealed) return app;
    return {
      ...app,
      webhookUrl: `${this.publicBaseUrl.replace(/\/$/, "")}${HELPDESK_HOOK_PATH}/${this.hookSecret(sealed.hookSecret)}`,
    };
  }

  /** A help desk's config with its token, for the connector; null when the app is gone. */
  async helpdesk(instanceId: string, appId: string): Promise<HelpdeskApp | null> {
    const raw = await this.redis.hget(this.k.apps(instanceId), appId);
    const app = raw ? (JSON.parse(raw) as StoredApp) : null;
    if (!app?.sealed || app.app !== "helpdesk") return null;
    const config = { ...app.config, token: this.sealer.open(app.sealed.token) } as HelpdeskApp["config"];
    return { instanceId, id: app.id, enabled: app.enabled, config };
  }

  /** The help desk whose hook secret this is (the hook's only credential); null for any other string. */
  async helpdeskByHook(secret: string): Promise<HelpdeskApp | null> {
    if (!/^[0-9a-z]{20,64}$/.test(secret)) return null;
    const found = await this.redis.get(this.k.helpdeskHook(hashOf(secret)));
    const [instanceId, appId] = found?.split(" ") ?? [];
    return instanceId && appId ? this.helpdesk(instanceId, appId) : null;
  }

  async create(instanceId: string, input: { app: AppKind; config?: Record<string, unknown>; enabled: boolean }) {
    if (SINGLE.has(input.app) && (await this.list(instanceId)).some((a) => a.app === input.app)) {
      throw invalid("app", `a instância já tem um app ${input.app}; altere-o com PATCH`);
    }
    const now = new Date().toISOString();
    const id = `app_${randomBase32(20)}`;
    let app: StoredApp = { id, app: input.app, config: {}, enabled: input.enabled, createdAt: now, updatedAt: now };
    app = this.withConfig(app, input.config);
    if (app.sealed) {
      const secret = this.hookSecret(app.sealed.hookSecret);
      await this.redis.set(this.k.helpdeskHook(hashOf(secret)), `${instanceId} ${id}`);
    }
    await this.save(instanceId, app);
    return this.shown(app);
  }

  async update(instanceId: string, appId: string, patch: { config?: Record<string, unknown>; enabled?: boolean }) {
    let app: StoredApp = { ...(await this.storedOne(instanceId, appId)), updatedAt: new Date().toISOString() };
    if (patch.config !== undefined) app = this.withConfig(app, patch.config);
    if (patch.enabled !== undefined) app.enabled = patch.enabled;
    await this.save(instanceId, app);
    return this.shown(app);
  }

  async delete(instanceId: string, appId: string): Promise<void> {
    const app = await this.storedOne(instanceId, appId);
    if (app.sealed) await this.redis.del(this.k.helpdeskHook(hashOf(this.hookSecret(app.sealed.hookSecret))));
    await this.redis.hdel(this.k.apps(instanceId), appId);
    await this.invalidations.announce("apps", instanceId);
  }

  /**
   * The app with `raw` as its config, validated. A help desk's token is sealed apart (a config
   * without one keeps the current token) and its hook secret made once, at creation.
   */
  private withConfig(app: StoredApp, raw: Record<string, unknown> | undefined): StoredApp {
    if (app.app !== "helpdesk") return { ...app, config: configOf(app.app, raw) };
    const kept = app.sealed && raw && raw.token === undefined ? this.sealer.open(app.sealed.token) : undefined;
    const { token, ...config } = configOf(app.app, kept ? { ...raw, token: kept } : raw);
    // Refused like a webhook's URL (400 url_not_allowed): the connector would call it.
    parseTargetUrl(String(config.url), { allowPrivate: this.allowPrivate, field: "config.url" });
    return {
      ...app,
      config,
      sealed: {
        token: this.sealer.seal(String(token)),
        hookSecret: app.sealed?.hookSecret ?? this.sealer.seal(randomBase32(32)),
      },
    };
  }

  /** The enabled app of a kind, if any (its config without secrets). */
  async enabled(instanceId: string, kind: AppKind): Promise<App | null> {
    const found = (await this.stored(instanceId)).find((a) => a.app === kind && a.enabled);
    return found ? this.shown(found) : null;
  }

  /** The phone-number rules of the instance's enabled apps (applied to every send's number). */
  async numberRules(instanceId: string): Promise<NumberRules> {
    const apps = await this.stored(instanceId);
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

  private async save(instanceId: string, app: StoredApp): Promise<void> {
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
