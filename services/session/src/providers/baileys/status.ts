import type { BaileysAreaModule } from "./areas.ts";

/** Status on the real network through Baileys (filled by its issue). */
export const baileysStatus: BaileysAreaModule = () => ({});
