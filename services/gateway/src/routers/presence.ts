import { router } from "../trpc/init.ts";

/** Presence routes (filled by its issue). */
export const presenceRouter = router({});
