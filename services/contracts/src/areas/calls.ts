import type { Capability } from "../capabilities.ts";
import { defineOps } from "../ops.ts";

/** Calls: the area's schemas, its session operations and its routes' capabilities (filled by its issue). */
export const callsOps = defineOps({});

export const callsCapabilities: Record<string, Capability> = {};
