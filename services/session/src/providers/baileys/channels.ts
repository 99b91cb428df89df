import type { BaileysAreaModule } from "./areas.ts";

/** Channels on the real network through Baileys (filled by its issue). */
export const baileysChannels: BaileysAreaModule = () => ({});
