import type { Capability } from "../capabilities.ts";
import { defineOps } from "../ops.ts";

/** Contacts: the area's schemas, its session operations and its routes' capabilities (filled by its issue). */
export const contactsOps = defineOps({});

export const contactsCapabilities: Record<string, Capability> = {};
