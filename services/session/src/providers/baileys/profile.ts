import type { BaileysAreaModule } from "./areas.ts";

/** Profile on the real network through Baileys (filled by its issue). */
export const baileysProfile: BaileysAreaModule = () => ({});
