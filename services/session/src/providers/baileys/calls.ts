import type { BaileysAreaModule } from "./areas.ts";

/** Calls on the real network through Baileys (filled by its issue). */
export const baileysCalls: BaileysAreaModule = () => ({});
