import { router } from "../trpc/init.ts";

/** Profile routes (filled by its issue). */
export const profileRouter = router({});
