import type { BaileysAreaModule } from "./areas.ts";

/** Presence on the real network through Baileys (filled by its issue). */
export const baileysPresence: BaileysAreaModule = () => ({});
