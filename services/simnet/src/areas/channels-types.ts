// What a channel (newsletter) is on the simulated network: the channel with its owner, admins,
// followers and posts, and a viewer's role in it. The records only, below the model
// (channels-model.ts), the directory (channels-directory.ts) and the area (channels.ts).
import type { SimPicture } from "../state/model.ts";
import type { MessageContent } from "../wire/protocol.ts";

export type ChannelRole = "owner" | "admin" | "subscriber" | "guest";

export interface Post {
  id: string;
  serverId: number;
  senderPhone: string;
  origin: "device" | "phone";
  timestamp: number;
  at: number;
  content: MessageContent;
  /** emoji → count: each account's reaction plus the anonymous ones of the control API. */
  reactions: Map<string, number>;
  /** Each account's current reaction. */
  reactors: Map<string, string>;
  views: number;
  deletedAt: number | null;
}

export interface Channel {
  id: string;
  name: string;
  description: string;
  invite: string;
  picture: SimPicture | null;
  owner: string;
  admins: Set<string>;
  /** Followers (phones) → muted. The owner and admins manage it without following it. */
  followers: Map<string, { muted: boolean; since: number }>;
  /** Owner and admins who muted it. */
  mutedStaff: Set<string>;
  verified: boolean;
  category: string | null;
  country: string | null;
  createdAt: number;
  /** Creation order (the directory's NEW), finer than `createdAt`. */
  seq: number;
  posts: Post[];
  nextServerId: number;
}
