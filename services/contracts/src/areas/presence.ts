import type { Capability } from "../capabilities.ts";
import { defineOps } from "../ops.ts";

/** Presence: the area's schemas, its session operations and its routes' capabilities (filled by its issue). */
export const presenceOps = defineOps({});

export const presenceCapabilities: Record<string, Capability> = {};
