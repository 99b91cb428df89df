// The body of the control API's `PUT …/picture` routes: a phone's profile picture (phones.ts) or
// a group's (groups.ts).
import { z } from "zod";

/** `PUT …/picture`: a profile or group picture, or null to remove it. */
export const pictureBody = z.object({
  picture: z.object({ data: z.string().min(1), mimetype: z.string().min(3) }).nullable(),
});
