import { router } from "../trpc/init.ts";

/** Contacts routes (filled by its issue). */
export const contactsRouter = router({});
