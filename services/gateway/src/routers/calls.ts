import { router } from "../trpc/init.ts";

/** Calls routes (filled by its issue). */
export const callsRouter = router({});
