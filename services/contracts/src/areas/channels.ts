import type { Capability } from "../capabilities.ts";
import { defineOps } from "../ops.ts";

/** Channels: the area's schemas, its session operations and its routes' capabilities (filled by its issue). */
export const channelsOps = defineOps({});

export const channelsCapabilities: Record<string, Capability> = {};
