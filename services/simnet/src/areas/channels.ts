// Channels on the simulated network (spec 4.6; docs/simnet.md "Channels"): the wire operations of
// a connected device (its channels, create, look up, follow, mute, preview, directory search) and
// the control API (channels owned by a virtual phone, its posts, reactions, views and followers).
import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import { SimnetError } from "../errors.ts";
import { sendMessage } from "../messaging/send.ts";
import type { SimnetState } from "../state/state.ts";
import { type OpDef, openOp, parseBody } from "../wire/op-kit.ts";
import { mediaSchema, messageContentSchema } from "../wire/protocol.ts";
import type { SimnetArea } from "./area.ts";
import { byText, byView, DIRECTORY_CATEGORIES, DIRECTORY_COUNTRIES, DIRECTORY_VIEWS } from "./channels-directory.ts";
import {
  channelsMemory,
  channelView,
  createChannel,
  findPost,
  previewOf,
  react,
  requireChannel,
  roleOf,
  setFollowing,
} from "./channels-model.ts";
import type { Channel } from "./channels-types.ts";

const channelId = z.string().regex(/^\d{5,25}@newsletter$/, "id: <digits>@newsletter");
const byId = z.object({ id: channelId });
const picture = mediaSchema.pick({ data: true, mimetype: true });
const page = { offset: z.number().int().min(0), limit: z.number().int().min(1).max(100) };
const categories = z.array(z.string().min(1).max(40)).max(50);

const follow = (action: "follow" | "unfollow" | "mute" | "unmute"): OpDef =>
  openOp(byId, ({ state, acc }, a) => {
    setFollowing(requireChannel(state, a), acc, action);
    return {};
  });

function pageOf(list: Channel[], offset: number, limit: number) {
  return {
    channels: list.slice(offset, offset + limit).map((c) => channelView(c, null)),
    hasMore: list.length > offset + limit,
  };
}

const all = (state: SimnetState) => [...channelsMemory(state).channels.values()];

const ops: Record<string, OpDef> = {
  /** The channels the account owns, administers or follows (optionally of one role). */
  "channels.list": openOp(
    z.object({ role: z.enum(["owner", "admin", "subscriber", "guest"]).optional() }),
    ({ state, acc }, a) =>
      all(state)
        .filter((c) => {
          const role = roleOf(c, acc.phone);
          return role !== "guest" && (!a.role || a.role === role);
        })
        .map((c) => channelView(c, acc)),
  ),
  "channels.create": openOp(
    z.object({
      name: z.string().min(1).max(100),
      description: z.string().max(2048).optional(),
      picture: picture.optional(),
    }),
    ({ state, acc }, a) => channelView(createChannel(state, acc, a), acc),
  ),
  "channels.get": openOp(z.union([byId, z.object({ invite: z.string().min(1).max(60) })]), ({ state, acc }, a) =>
    channelView(requireChannel(state, a), acc),
  ),
  "channels.follow": follow("follow"),
  "channels.unfollow": follow("unfollow"),
  "channels.mute": follow("mute"),
  "channels.unmute": follow("unmute"),
  "channels.preview": openOp(byId.extend({ limit: page.limit, media: z.boolean() }), ({ state, acc }, a) =>
    previewOf(requireChannel(state, a), acc, a.limit, a.media),
  ),
  "channels.search-by-view": openOp(
    z.object({ view: z.string(), categories, countries: z.array(z.string().length(2)).max(50), ...page }),
    ({ state }, a) => pageOf(byView(all(state), a.view, a.categories, a.countries), a.offset, a.limit),
  ),
  "channels.search-by-text": openOp(
    z.object({ text: z.string().min(1).max(100), categories, ...page }),
    ({ state }, a) => pageOf(byText(all(state), a.text, a.categories), a.offset, a.limit),
  ),
  "channels.views": openOp(z.object({}), () => DIRECTORY_VIEWS),
  "channels.countries": openOp(z.object({}), () => DIRECTORY_COUNTRIES),
  "channels.categories": openOp(z.object({}), () => DIRECTORY_CATEGORIES),
};

// --- control API -------------------------------------------------------------------------------

/** Everything about a channel, for tests (numbers shown). */
function adminView(ch: Channel) {
  return {
    id: ch.id,
    name: ch.name,
    description: ch.description,
    invite: ch.invite,
    owner: ch.owner,
    admins: [...ch.admins],
    followers: [...ch.followers].map(([phone, f]) => ({ phone, muted: f.muted })),
    verified: ch.verified,
    category: ch.category,
    country: ch.country,
    hasPicture: ch.picture !== null,
    createdAt: new Date(ch.createdAt).toISOString(),
    posts: ch.posts.map((p) => ({
      id: p.id,
      serverId: String(p.serverId),
      sender: p.senderPhone,
      origin: p.origin,
      timestamp: p.timestamp,
      message: p.content,
      reactions: Object.fromEntries(p.reactions),
      viewCount: p.views,
      deleted: p.deletedAt !== null,
    })),
  };
}

const newChannelInput = z.object({
  owner: z.string().min(1),
  name: z.string().min(1).max(100),
  description: z.string().max(2048).optional(),
  category: z
    .string()
    .regex(/^[A-Z0-9_]{2,40}$/)
    .nullable()
    .optional(),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/)
    .nullable()
    .optional(),
  verified: z.boolean().optional(),
  picture: picture.nullable().optional(),
  admins: z.array(z.string().min(1)).optional(),
  followers: z.array(z.string().min(1)).optional(),
});

function control(app: FastifyInstance, state: SimnetState): void {
  const channelOf = (req: FastifyRequest) =>
    requireChannel(state, { id: parseBody(z.object({ channelId: z.string() }), req.params).channelId });
  const postOf = (req: FastifyRequest) => {
    const { postId } = parseBody(z.object({ postId: z.string() }), req.params);
    return findPost(channelOf(req), postId);
  };

  /** A channel owned by a virtual phone (an account is made for it if needed). */
  app.post("/simnet/channels", async (req, reply) => {
    const input = parseBody(newChannelInput, req.body);
    const owner = state.ensureAccount(input.owner);
    const ch = createChannel(state, owner, input);
    for (const p of input.admins ?? []) ch.admins.add(state.requireAccount(p).phone);
    for (const p of input.followers ?? []) setFollowing(ch, state.requireAccount(p), "follow");
    return reply.code(201).send(adminView(ch));
  });

  app.get("/simnet/channels", async () => ({ channels: all(state).map(adminView) }));

  app.get("/simnet/channels/:channelId", async (req) => adminView(channelOf(req)));

  /** A phone follows (or, with `muted`, follows muted). */
  app.post("/simnet/channels/:channelId/followers", async (req) => {
    const ch = channelOf(req);
    const body = parseBody(z.object({ phone: z.string().min(1), muted: z.boolean().optional() }), req.body);
    const acc = state.ensureAccount(body.phone);
    setFollowing(ch, acc, "follow");
    if (body.muted !== undefined) setFollowing(ch, acc, body.muted ? "mute" : "unmute");
    return adminView(ch);
  });

  app.delete("/simnet/channels/:channelId/followers/:phone", async (req) => {
    const ch = channelOf(req);
    setFollowing(ch, state.requireAccount(parseBody(z.object({ phone: z.string() }), req.params).phone), "unfollow");
    return adminView(ch);
  });

  /** The owner (or the admin `phone`) posts: every follower's devices get it. */
  app.post("/simnet/channels/:channelId/posts", async (req, reply) => {
    const ch = channelOf(req);
    const body = parseBody(z.object({ phone: z.string().optional(), message: messageContentSchema }), req.body);
    const sender = body.phone ? state.requireAccount(body.phone) : state.requireAccount(ch.owner);
    const sent = sendMessage(state, sender, { kind: "phone" }, { to: ch.id, message: body.message });
    const post = ch.posts.find((p) => p.id === sent.id);
    return reply.code(201).send({ ...sent, serverId: post ? String(post.serverId) : null });
  });

  /** Reactions: a phone's own (`""` removes it), or `count` anonymous ones of `emoji`. */
  app.post("/simnet/channels/:channelId/posts/:postId/reactions", async (req) => {
    const ch = channelOf(req);
    const post = postOf(req);
    const body = parseBody(
      z.object({
        emoji: z.string().max(32),
        phone: z.string().optional(),
        count: z.number().int().min(1).max(1e6).optional(),
      }),
      req.body,
    );
    if (!body.phone && !body.emoji) throw new SimnetError("validation_error", "anonymous reactions need an emoji");
    react(state, ch, post, { ...body, phone: body.phone ? state.ensureAccount(body.phone).phone : undefined });
    return { reactions: Object.fromEntries(post.reactions) };
  });

  app.post("/simnet/channels/:channelId/posts/:postId/views", async (req) => {
    const post = postOf(req);
    const { count = 1 } = parseBody(z.object({ count: z.number().int().min(1).max(1e9).optional() }), req.body);
    post.views += count;
    return { viewCount: post.views };
  });
}

export const channelsArea: SimnetArea = { name: "channels", ops, control };
