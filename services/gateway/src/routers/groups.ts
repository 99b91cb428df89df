import { router } from "../trpc/init.ts";

/** Groups routes (filled by its issue). */
export const groupsRouter = router({});
