import type { SimAreaModule } from "../area.ts";

/**
 * Status posts on simnet need no operation of their own: a post is a `send` to `status@broadcast`
 * whose `status` argument carries the audience and style (session/send.ts passes `SendOptions.status`),
 * and the posts of others arrive as `message` frames with `chatId` `status@broadcast`, which the
 * session passes on as every message (`settings.ignore.status` applies by that chat id).
 */
export const simStatus: SimAreaModule = () => ({});
