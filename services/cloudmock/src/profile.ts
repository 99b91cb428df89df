// Business profile and the resumable upload that sets its picture (reference cloud-api.md §4).
import { randomBytes } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { GraphFault } from "./graph-errors.ts";
import { type GraphAuth, graphRoute } from "./graph-kit.ts";
import type { CloudMockState } from "./state.ts";

type Obj = Record<string, unknown>;
const FIELDS = ["about", "address", "description", "email", "profile_picture_url", "websites", "vertical"];
const LIMITS: Record<string, number> = { about: 139, address: 256, description: 512, email: 128 };

function validate(b: Obj): void {
  for (const [field, max] of Object.entries(LIMITS)) {
    const v = b[field];
    if (v === undefined) continue;
    if (typeof v !== "string" || v.length > max)
      throw new GraphFault(100, `${field}: a string of at most ${max} characters`);
    if (field === "about" && v.length === 0) throw new GraphFault(100, "about must not be empty");
    if (field === "email" && v !== "" && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(v))
      throw new GraphFault(100, "email is not valid");
  }
  if (b.vertical !== undefined && (typeof b.vertical !== "string" || !/^[A-Z_]+$/.test(b.vertical))) {
    throw new GraphFault(100, "vertical must be an upper-case industry");
  }
  if (b.websites !== undefined) {
    const w = b.websites;
    if (!Array.isArray(w) || w.length > 2) throw new GraphFault(100, "websites: at most 2");
    for (const site of w) {
      if (typeof site !== "string" || site.length > 256 || !/^https?:\/\//.test(site)) {
        throw new GraphFault(100, "each website: http(s), at most 256 characters");
      }
    }
  }
}

export function registerProfile(app: FastifyInstance, state: CloudMockState, auth: GraphAuth): void {
  graphRoute(app, state, auth, "GET", "/:version/:pnid/whatsapp_business_profile", "profile", async (req, n) => {
    const fields = String((req.query as { fields?: string }).fields ?? FIELDS.join(","))
      .split(",")
      .map((f) => f.trim());
    const profile: Obj = { messaging_product: "whatsapp" };
    for (const f of fields) if (n.profile[f] !== undefined) profile[f] = n.profile[f];
    return { data: [profile] };
  });

  graphRoute(app, state, auth, "POST", "/:version/:pnid/whatsapp_business_profile", "profile", async (req, n) => {
    const b = (req.body ?? {}) as Obj;
    if (b.messaging_product !== "whatsapp") throw new GraphFault(131008, "messaging_product must be whatsapp");
    validate(b);
    for (const f of ["about", "address", "description", "email", "vertical", "websites"]) {
      if (b[f] !== undefined) n.profile[f] = b[f];
    }
    if (b.profile_picture_handle !== undefined) {
      const picture = state.handles.get(String(b.profile_picture_handle));
      if (!picture) throw new GraphFault(100, "profile_picture_handle is not a finished upload");
      n.profile.picture = picture;
      n.profile.profile_picture_url = `${state.publicUrl()}/profile-picture/${n.phoneNumberId}?v=${state.next()}`;
    }
    return { success: true };
  });

  app.get("/profile-picture/:pnid", async (req, reply) => {
    const n = state.numbers.get((req.params as { pnid: string }).pnid);
    const picture = n?.profile.picture as { data: Buffer; type: string } | undefined;
    if (!picture) return reply.code(404).send({ error: { code: "not_found", message: "no picture" } });
    return reply.header("content-type", picture.type).send(picture.data);
  });

  // Resumable upload (§4.3): a session on the app, the bytes at offset 0, a handle.
  graphRoute(
    app,
    state,
    auth,
    "POST",
    "/:version/:appId/uploads",
    "uploads",
    async (req, n) => {
      const q = req.query as Record<string, string | undefined>;
      if ((req.params as { appId: string }).appId !== n.appId) throw new GraphFault(100, "unknown app id");
      const length = Number(q.file_length);
      const type = String(q.file_type ?? "");
      if (!Number.isInteger(length) || length <= 0) throw new GraphFault(100, "file_length must be a positive integer");
      if (!["application/pdf", "image/jpeg", "image/jpg", "image/png", "video/mp4"].includes(type)) {
        throw new GraphFault(100, `file_type ${type} is not accepted`);
      }
      const id = `upload:${randomBytes(12).toString("base64url")}`;
      state.uploads.set(id, { appId: n.appId, length, type, data: null });
      return { id };
    },
    "token",
  );
}

/** `POST /{version}/upload:<session>`: the bytes (registered where the node routes are). */
export function registerUploadBytes(app: FastifyInstance, state: CloudMockState, auth: GraphAuth): void {
  graphRoute(
    app,
    state,
    auth,
    "POST",
    "/:version/:id",
    "uploads",
    async (req) => {
      const { id } = req.params as { id: string };
      const u = state.uploads.get(id);
      if (!id.startsWith("upload:") || !u) throw new GraphFault(100, "unknown upload session");
      if (String(req.headers.file_offset ?? "") !== "0") throw new GraphFault(100, "file_offset header must be 0");
      const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (bytes.length !== u.length) throw new GraphFault(100, `expected ${u.length} bytes, got ${bytes.length}`);
      u.data = bytes;
      const h = `2:${randomBytes(24).toString("base64")}`;
      state.handles.set(h, { data: bytes, type: u.type === "image/jpg" ? "image/jpeg" : u.type });
      return { h };
    },
    "node",
  );
}
