import type { BaileysAreaModule } from "./areas.ts";

/** Groups on the real network through Baileys (filled by its issue). */
export const baileysGroups: BaileysAreaModule = () => ({});
