import type { BaileysAreaModule } from "./areas.ts";

/** Contacts on the real network through Baileys (filled by its issue). */
export const baileysContacts: BaileysAreaModule = () => ({});
