import { router } from "../trpc/init.ts";

/** Labels routes (filled by its issue). */
export const labelsRouter = router({});
