import type { Capability } from "../capabilities.ts";
import { defineOps } from "../ops.ts";

/** Groups: the area's schemas, its session operations and its routes' capabilities (filled by its issue). */
export const groupsOps = defineOps({});

export const groupsCapabilities: Record<string, Capability> = {};
