import { createHmac } from "node:crypto";
import {
  type CloudCredentials,
  type CloudCredentialsInput,
  type CloudCredentialsPatch,
  type CloudPublic,
  DEFAULT_GRAPH_BASE_URL,
  invalid,
} from "@gw/contracts";
import type { Redis } from "ioredis";
import { Sealer } from "../auth/sealed.ts";
import type { Keys } from "../infra/keys.ts";

/** The sealing key of the credentials: given, or derived from WEBHOOK_SECRET_KEY (every role has it). */
export function cloudCredentialsKey(given: string | undefined, webhookSecretKey: string): string {
  if (given) return given;
  return createHmac("sha256", Buffer.from(webhookSecretKey, "base64")).update("cloud-credentials").digest("base64");
}

/**
 * KEYS: the instance's hash, the new phone-number index, the old one ('' key when unchanged),
 * the new WABA set, the old one. ARGV: instanceId, then field/value pairs. The number can belong
 * to one instance only: 'TAKEN:<owner>' when another holds it.
 */
const SET_CREDENTIALS = `
local owner = redis.call('GET', KEYS[2])
if owner and owner ~= ARGV[1] then return 'TAKEN:' .. owner end
redis.call('SET', KEYS[2], ARGV[1])
if KEYS[3] ~= KEYS[2] and redis.call('GET', KEYS[3]) == ARGV[1] then redis.call('DEL', KEYS[3]) end
if KEYS[5] ~= KEYS[4] then redis.call('SREM', KEYS[5], ARGV[1]) end
redis.call('SADD', KEYS[4], ARGV[1])
for i = 2, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 'OK'`;

type Stored = {
  phoneNumberId?: string;
  wabaId?: string;
  apiBaseUrl?: string;
  accessToken?: string;
  appSecret?: string;
  displayPhone?: string;
};

/**
 * The operator credentials of official-gateway instances (docs/official.md): the access token and
 * the app secret sealed at rest (AES-256-GCM), never answered; indexes from the operator's ids to
 * the instance, for the inbound webhooks (phone-number id, WABA id, and the display number some
 * webhooks carry instead).
 */
export class CloudCredentialStore {
  private readonly sealer: Sealer;

  constructor(
    private readonly redis: Redis,
    private readonly k: Keys,
    sealingKey: string,
  ) {
    this.sealer = new Sealer(sealingKey);
  }

  /** Sets (create) or changes (patch) an instance's credentials; a phone-number id another instance runs is 422. */
  async set(instanceId: string, input: CloudCredentialsInput | CloudCredentialsPatch): Promise<CloudPublic> {
    const current = (await this.redis.hgetall(this.k.cloudCredentials(instanceId))) as Stored;
    const next = {
      phoneNumberId: input.phoneNumberId ?? current.phoneNumberId,
      wabaId: input.wabaId ?? current.wabaId,
      apiBaseUrl: input.apiBaseUrl ?? current.apiBaseUrl ?? DEFAULT_GRAPH_BASE_URL,
    };
    const missing = (["phoneNumberId", "wabaId"] as const).filter((f) => !next[f]);
    if (
      missing.length > 0 ||
      (!input.accessToken && !current.accessToken) ||
      (!input.appSecret && !current.appSecret)
    ) {
      throw invalid(
        "cloud",
        "informe cloud { phoneNumberId, wabaId, accessToken, appSecret }",
        "Credenciais incompletas.",
      );
    }
    const fields: string[] = [
      "phoneNumberId",
      next.phoneNumberId!,
      "wabaId",
      next.wabaId!,
      "apiBaseUrl",
      next.apiBaseUrl,
    ];
    if (input.accessToken) fields.push("accessToken", this.sealer.seal(input.accessToken));
    if (input.appSecret) fields.push("appSecret", this.sealer.seal(input.appSecret));
    if (input.phoneNumberId && input.phoneNumberId !== current.phoneNumberId) fields.push("displayPhone", "");
    const k = this.k;
    const answer = String(
      await this.redis.eval(
        SET_CREDENTIALS,
        5,
        k.cloudCredentials(instanceId),
        k.cloudByPhoneNumberId(next.phoneNumberId!),
        current.phoneNumberId
          ? k.cloudByPhoneNumberId(current.phoneNumberId)
          : k.cloudByPhoneNumberId(next.phoneNumberId!),
        k.cloudByWaba(next.wabaId!),
        current.wabaId ? k.cloudByWaba(current.wabaId) : k.cloudByWaba(next.wabaId!),
        instanceId,
        ...fields,
      ),
    );
    if (answer.startsWith("TAKEN:")) {
      throw invalid(
        "cloud.phoneNumberId",
        `já usado pela instância ${answer.slice(6)}`,
        "Este número do operador já pertence a outra instância.",
      );
    }
    return next as CloudPublic;
  }

  /** The credentials, opened (session pods); null when none were set. */
  async get(instanceId: string): Promise<CloudCredentials | null> {
    const s = (await this.redis.hgetall(this.k.cloudCredentials(instanceId))) as Stored;
    if (!s.phoneNumberId || !s.wabaId || !s.accessToken || !s.appSecret) return null;
    return {
      phoneNumberId: s.phoneNumberId,
      wabaId: s.wabaId,
      apiBaseUrl: s.apiBaseUrl || DEFAULT_GRAPH_BASE_URL,
      accessToken: this.sealer.open(s.accessToken),
      appSecret: this.sealer.open(s.appSecret),
    };
  }

  /** The app secret of each instance that has one (webhook signatures). */
  async appSecrets(instanceIds: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (instanceIds.length === 0) return out;
    const pipeline = this.redis.pipeline();
    for (const id of instanceIds) pipeline.hget(this.k.cloudCredentials(id), "appSecret");
    const results = (await pipeline.exec()) ?? [];
    instanceIds.forEach((id, i) => {
      const sealed = results[i]?.[1];
      if (typeof sealed === "string" && sealed) out.set(id, this.sealer.open(sealed));
    });
    return out;
  }

  byPhoneNumberId(phoneNumberId: string): Promise<string | null> {
    return this.redis.get(this.k.cloudByPhoneNumberId(phoneNumberId));
  }

  byWaba(wabaId: string): Promise<string[]> {
    return this.redis.smembers(this.k.cloudByWaba(wabaId));
  }

  byDisplayPhone(digits: string): Promise<string | null> {
    return this.redis.get(this.k.cloudByDisplayPhone(digits));
  }

  /** The number's digits as the operator displays it: some webhooks name the number only so. */
  async learnDisplayPhone(instanceId: string, digits: string): Promise<void> {
    await this.redis
      .multi()
      .hset(this.k.cloudCredentials(instanceId), "displayPhone", digits)
      .set(this.k.cloudByDisplayPhone(digits), instanceId)
      .exec();
  }

  async delete(instanceId: string): Promise<void> {
    const s = (await this.redis.hgetall(this.k.cloudCredentials(instanceId))) as Stored;
    const multi = this.redis.multi().del(this.k.cloudCredentials(instanceId));
    if (s.wabaId) multi.srem(this.k.cloudByWaba(s.wabaId), instanceId);
    await multi.exec();
    // Indexes are removed only while they still name this instance.
    for (const key of [
      s.phoneNumberId ? this.k.cloudByPhoneNumberId(s.phoneNumberId) : null,
      s.displayPhone ? this.k.cloudByDisplayPhone(s.displayPhone) : null,
    ]) {
      if (key && (await this.redis.get(key)) === instanceId) await this.redis.del(key);
    }
  }
}
