/**
 * Which Redis shard each key family lives on (docs/architecture.md "Sharding the keyspace"): the
 * one place that says it. Keys are `<KEY_PREFIX><family head><rest>` (infra/keys.ts); a family is
 * - `instance`: one instance's data, the id right after the head (`rmd:<id>:<msg>`): on the
 *   instance's shard;
 * - `local`: a structure every shard has its own of, written beside instance keys (the dispatch
 *   streams, the queue's active set, the chat index): on the shard of the instance keys it is
 *   written with, and read per shard by the loops that consume it;
 * - `control`: global data (accounts, the instance directory and auth, leases and pods, webhook
 *   configuration, an official instance's credentials with the operator's id maps
 *   they are written with, help-desk maps): on the control shard.
 *
 * The test beside this file checks that every key `keys()` makes is classified here.
 */
import { INSTANCE_ID_RE } from "@gw/contracts";

export type KeyScope = "instance" | "local" | "control";

/** Heads of instance families: the instance id follows, up to the next `:` or the end. */
const INSTANCE_HEADS = [
  "as:",
  "recent:",
  "msg:",
  "msgraw:",
  "media:",
  "avatar:",
  "rchat:",
  "rmd:",
  "rma:",
  "rmal:",
  "rmk:",
  "rmkl:",
  "rchs:",
  "rchv:",
  "rchm:",
  "rmp:",
  "lid:",
  "lidrev:",
  "chatnames:",
  "idem:",
  "trial:",
  "trial-charge:",
  "q:",
  "cloud:win:",
  "cloud:media:",
  "cloud:seen:",
  "grp:",
  "status:aud:",
  "status:posts:",
  "call:",
  "cv:",
  "apps:",
  "prec:",
  "pres:",
  "presi:",
  "dlv:",
  "whd:",
  "whrt:",
] as const;

/** Whole names (after the prefix) or heads of local families: checked before the instance heads. */
const LOCAL_NAMES = new Set(["q:active", "all-events", "all-events:watch", "rchat:index", "rchat:index:hash"]);
const LOCAL_HEADS = ["events:"] as const;

/** Heads of control families (documentation and the test: anything not instance or local is control). */
export const CONTROL_HEADS = [
  "instance",
  "account",
  "auth:",
  "rl:",
  "invalidate",
  "running",
  "logout-pending",
  "lease:",
  "epoch:",
  "pods",
  "pod:",
  "session:kick",
  "webhook",
  "dlv:",
  "wh:",
  "cloud:cred:",
  "cloud:pn:",
  "cloud:waba:",
  "cloud:dn:",
  "cloud:in:",
  "hd:",
  "lock:",
  "rmsg",
  "shard:",
] as const;

// Longest heads first: `rmkl:` before `rmk:`, `trial-charge:` before `trial:`.
const HEADS = [...INSTANCE_HEADS].sort((a, b) => b.length - a.length);

/** Where a key lives: its scope and, for an instance key, the instance's id. */
export interface KeyRoute {
  scope: KeyScope;
  instanceId?: string;
}

const CONTROL: KeyRoute = { scope: "control" };
const LOCAL: KeyRoute = { scope: "local" };

/** The route of `key` under `prefix`; a key outside the prefix, or of no family, is control's. */
export function routeOfKey(prefix: string, key: string): KeyRoute {
  if (!key.startsWith(prefix)) return CONTROL;
  const name = key.slice(prefix.length);
  if (LOCAL_NAMES.has(name)) return LOCAL;
  for (const head of LOCAL_HEADS) if (name.startsWith(head)) return LOCAL;
  for (const head of HEADS) {
    if (!name.startsWith(head)) continue;
    const end = name.indexOf(":", head.length);
    const id = end < 0 ? name.slice(head.length) : name.slice(head.length, end);
    // Anything under an instance head that is not an instance id is not an instance key.
    return INSTANCE_ID_RE.test(id) ? { scope: "instance", instanceId: id } : CONTROL;
  }
  return CONTROL;
}
