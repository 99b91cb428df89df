import { type Account, ApiError } from "@gw/contracts";
import type { Redis } from "ioredis";
import type { Entity } from "redis-om";
import { newAccountId } from "./ids.ts";
import type { Keys } from "./keys.ts";
import type { Repositories } from "./repositories.ts";
import { hashToken, newSecretToken } from "./secrets.ts";

type AccountDoc = { id: string; name: string; email: string | null; createdAt: string; createdAtMs: number };

export class AccountStore {
  constructor(
    private readonly redis: Redis,
    private readonly repos: Repositories,
    private readonly k: Keys,
  ) {}

  async create(input: { name: string; email?: string | undefined }): Promise<Account> {
    const now = new Date();
    const doc: AccountDoc = {
      id: newAccountId(),
      name: input.name,
      email: input.email ?? null,
      createdAt: now.toISOString(),
      createdAtMs: now.getTime(),
    };
    await this.repos.accounts.save(doc.id, doc);
    return this.toAccount(doc, {});
  }

  async get(id: string): Promise<Account> {
    const doc = await this.fetchDoc(id);
    return this.toAccount(doc, await this.redis.hgetall(this.k.accountAuth(id)));
  }

  async list(limit: number, offset: number): Promise<{ data: Account[]; total: number }> {
    const search = this.repos.accounts.search().sortAscending("createdAtMs");
    const [docs, total] = await Promise.all([search.page(offset, limit), search.return.count()]);
    const auths = await Promise.all(docs.map((d) => this.redis.hgetall(this.k.accountAuth(String(d.id)))));
    return { data: docs.map((d, i) => this.toAccount(d as unknown as AccountDoc, auths[i] ?? {})), total };
  }

  /** Issues a new Client-Token (shown once) and sets the "require on all calls" switch. */
  async issueClientToken(id: string, requireOnAllCalls: boolean): Promise<string> {
    await this.fetchDoc(id);
    const token = newSecretToken("gwc");
    await this.redis.hset(this.k.accountAuth(id), {
      clientTokenHash: hashToken(token),
      requireOnAllCalls: requireOnAllCalls ? "1" : "0",
    });
    return token;
  }

  async setRequireOnAllCalls(id: string, requireOnAllCalls: boolean): Promise<Account> {
    const account = await this.get(id);
    if (!account.clientToken.enabled) {
      throw new ApiError("validation_error", "A conta não tem Client-Token.", {
        requireOnAllCalls: "crie um Client-Token antes de exigi-lo",
      });
    }
    await this.redis.hset(this.k.accountAuth(id), "requireOnAllCalls", requireOnAllCalls ? "1" : "0");
    return this.get(id);
  }

  async disableClientToken(id: string): Promise<Account> {
    await this.fetchDoc(id);
    await this.redis.hdel(this.k.accountAuth(id), "clientTokenHash", "requireOnAllCalls");
    return this.get(id);
  }

  /** Counts instance creations atomically; the first one of an account gets the free trial. */
  async countInstanceCreation(id: string): Promise<number> {
    return this.redis.hincrby(this.k.accountAuth(id), "instancesCreated", 1);
  }

  private async fetchDoc(id: string): Promise<AccountDoc> {
    const e: Entity = await this.repos.accounts.fetch(id);
    if (typeof e.id !== "string") throw new ApiError("not_found", "Conta não encontrada.");
    return e as unknown as AccountDoc;
  }

  private toAccount(doc: AccountDoc, auth: Record<string, string>): Account {
    return {
      id: doc.id,
      name: doc.name,
      email: doc.email ?? null,
      createdAt: doc.createdAt,
      clientToken: { enabled: Boolean(auth.clientTokenHash), requireOnAllCalls: auth.requireOnAllCalls === "1" },
    };
  }
}
