import { type Account, ApiError, invalid } from "@gw/contracts";
import type { Redis } from "ioredis";
import type { Entity } from "redis-om";
import { hashToken, newSecretToken } from "../auth/secrets.ts";
import { newAccountId } from "../infra/ids.ts";
import type { Keys } from "../infra/keys.ts";
import type { Repositories } from "./repositories.ts";

type AccountDoc = { id: string; name: string; email: string | null; createdAt: string; createdAtMs: number };

/**
 * A change of an account's Client-Token state, and of every copy of it in its instances' auth
 * hashes (auth/authorizer.ts: the request path reads the copy). KEYS: the account's auth hash, its set of
 * copies. ARGV: `set` hash required | `require` required | `clear`. One script: no request sees
 * the account changed and a copy not (or the reverse). A copy whose instance is gone (its auth
 * hash deleted) leaves the set instead of being written.
 */
const CLIENT_TOKEN = `
if ARGV[1] == 'set' then
  redis.call('HSET', KEYS[1], 'clientTokenHash', ARGV[2], 'requireOnAllCalls', ARGV[3])
elseif ARGV[1] == 'require' then
  redis.call('HSET', KEYS[1], 'requireOnAllCalls', ARGV[2])
else
  redis.call('HDEL', KEYS[1], 'clientTokenHash', 'requireOnAllCalls')
end
local st = redis.call('HMGET', KEYS[1], 'clientTokenHash', 'requireOnAllCalls')
local ct, ctr = st[1] or '', st[2] or ''
for _, key in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  if redis.call('EXISTS', key) == 1 then
    redis.call('HSET', key, 'ctc', '1', 'ct', ct, 'ctr', ctr)
  else
    redis.call('SREM', KEYS[2], key)
  end
end
return 1
`;

type ClientTokenScript = {
  gwAccountClientToken(account: string, copies: string, ...args: string[]): Promise<number>;
};

export class AccountStore {
  constructor(
    private readonly redis: Redis,
    private readonly repos: Repositories,
    private readonly k: Keys,
  ) {
    redis.defineCommand("gwAccountClientToken", { numberOfKeys: 2, lua: CLIENT_TOKEN });
  }

  /** The Client-Token fields are written only here: the script keeps the instances' copies equal. */
  private clientTokenChange(id: string, ...args: string[]): Promise<number> {
    return (this.redis as unknown as ClientTokenScript).gwAccountClientToken(
      this.k.accountAuth(id),
      this.k.accountAuthCopies(id),
      ...args,
    );
  }

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
    await this.clientTokenChange(id, "set", hashToken(token), requireOnAllCalls ? "1" : "0");
    return token;
  }

  async setRequireOnAllCalls(id: string, requireOnAllCalls: boolean): Promise<Account> {
    const account = await this.get(id);
    if (!account.clientToken.enabled) {
      throw invalid("requireOnAllCalls", "crie um Client-Token antes de exigi-lo", "A conta não tem Client-Token.");
    }
    await this.clientTokenChange(id, "require", requireOnAllCalls ? "1" : "0");
    return this.get(id);
  }

  async disableClientToken(id: string): Promise<Account> {
    await this.fetchDoc(id);
    await this.clientTokenChange(id, "clear");
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
