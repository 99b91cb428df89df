import { router } from "../trpc/init.ts";

/** Status routes (filled by its issue). */
export const statusRouter = router({});
