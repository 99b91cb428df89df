import type { SimAreaModule } from "./areas.ts";

/** Contacts on simnet (filled by its issue). */
export const simContacts: SimAreaModule = () => ({});
