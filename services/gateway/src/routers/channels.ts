import { router } from "../trpc/init.ts";

/** Channels routes (filled by its issue). */
export const channelsRouter = router({});
