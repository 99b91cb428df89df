// Status posts on the simulated network (spec 4.8; docs/simnet.md "Status posts"), the area: the
// control API shows what each phone posted and what it was shown. The posts themselves (a `send`
// to `status@broadcast`, its audience, deletions) are in status-posts.ts.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import type { SimnetState } from "../state/state.ts";
import { parseBody } from "../wire/op-kit.ts";
import type { SimnetArea } from "./area.ts";
import { type StatusPost, statusMemory } from "./status-posts.ts";

// --- control API -------------------------------------------------------------------------------

function postView(state: SimnetState, post: StatusPost) {
  return {
    seq: post.seq,
    id: post.id,
    origin: post.origin,
    instanceId: post.instanceId,
    timestamp: post.timestamp,
    at: post.at,
    message: post.content,
    ...post.style,
    ...(post.refused ? { refused: post.refused } : {}),
    audience: post.audience,
    deleted: post.deletedAt !== null,
    sender: state.accounts.get(post.senderPhone)?.phone ?? post.senderPhone,
  };
}

const listQuery = z.object({ since: z.coerce.number().int().min(0).optional() });

function control(app: FastifyInstance, state: SimnetState): void {
  const account = (req: FastifyRequest) =>
    state.requireAccount(parseBody(z.object({ phone: z.string() }), req.params).phone);

  /** What the phone posted (its instances' posts and its own), oldest first. */
  app.get("/simnet/phones/:phone/statuses", async (req) => {
    const acc = account(req);
    const { since = 0 } = parseBody(listQuery, req.query);
    const posts = statusMemory(state).posted.get(acc.phone) ?? [];
    return { statuses: posts.filter((p) => p.seq > since).map((p) => postView(state, p)) };
  });

  /** What the phone was shown: the posts of others whose audience it was in, oldest first. */
  app.get("/simnet/phones/:phone/status-feed", async (req) => {
    const acc = account(req);
    const { since = 0 } = parseBody(listQuery, req.query);
    const feed = statusMemory(state).feeds.get(acc.phone) ?? [];
    return {
      statuses: feed
        .filter((e) => e.seq > since)
        .map((e) => {
          const sender = state.accounts.get(e.post.senderPhone);
          return {
            seq: e.seq,
            at: e.at,
            id: e.post.id,
            from: sender ? state.peer(sender, acc.phone) : null,
            timestamp: e.post.timestamp,
            message: e.post.content,
            ...e.post.style,
            deleted: e.post.deletedAt !== null,
          };
        }),
    };
  });
}

export const statusArea: SimnetArea = { name: "status", control };
