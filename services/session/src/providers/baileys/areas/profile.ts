import { ApiError, invalid } from "@gw/contracts";
import { jidNormalizedUser, type WASocket } from "@whiskeysockets/baileys";
import { accountFromMe, normalizeLid, phoneFromJid } from "../account.ts";
import type { BaileysAreaModule } from "./area.ts";

/**
 * The account's profile on the real network through Baileys 7 (rc14, `Socket/chats.js`):
 *
 * | operation | Baileys | on the wire |
 * |---|---|---|
 * | get | `creds.me` (id, lid, name), `fetchStatus(me)` for the about text | a `usync` query with the `status` protocol |
 * | setName | `updateProfileName(name)` | an app-state patch (`critical_block`, `pushNameSetting`): needs the app-state key the phone shares after pairing; Baileys applies its own patch, whose `creds.update` makes the instance's pushName follow |
 * | setStatus | `updateProfileStatus(text)` | `<iq xmlns="status" type="set"><status>text</status>` |
 * | setPicture | `updateProfilePicture(me, bytes)` | Baileys makes a 640×640 JPEG (quality 50, cut to the centre) with sharp, then `<iq xmlns="w:profile:picture" type="set"><picture type="image">` |
 * | removePicture | `removeProfilePicture(me)` | the same iq without a picture |
 *
 * The picture is read back like any contact's (`picture` of the session: `profilePictureUrl`).
 */

/** The account's own JID (`5511…@s.whatsapp.net`, without the device). */
function meJid(sock: WASocket): string {
  const id = sock.authState.creds.me?.id;
  if (!id) throw new ApiError("instance_not_connected");
  return jidNormalizedUser(id);
}

/** Reading the about text is best effort: the profile answers without it when the network does not say. */
async function aboutOf(sock: WASocket, jid: string): Promise<string | null> {
  try {
    const found = await sock.fetchStatus(jid);
    const status = (found?.[0] as { status?: { status?: string | null } } | undefined)?.status?.status;
    return typeof status === "string" && status !== "" ? status : null;
  } catch {
    return null;
  }
}

export const baileysProfile: BaileysAreaModule = (area) => ({
  "profile.get": () =>
    area.call("profile.get", async (sock) => {
      const me = sock.authState.creds.me;
      const jid = meJid(sock);
      return {
        phone: phoneFromJid(jid),
        lid: normalizeLid(me?.lid) || null,
        name: accountFromMe(me).pushName,
        about: await aboutOf(sock, jid),
      };
    }),

  "profile.setName": ({ name }) =>
    area.call("profile.setName", async (sock) => {
      // Without the key the patch cannot be made ("App state key not present!"): the phone shares it
      // shortly after pairing, so this is a wait, not a refusal.
      if (!sock.authState.creds.myAppStateKeyId) {
        throw new ApiError(
          "network_error",
          "A conta ainda não recebeu do celular as chaves de sincronização; tente de novo em instantes.",
          undefined,
          5,
        );
      }
      await sock.updateProfileName(name);
      return {};
    }),

  "profile.setStatus": ({ status }) =>
    area.call("profile.setStatus", async (sock) => {
      await sock.updateProfileStatus(status);
      return {};
    }),

  "profile.setPicture": ({ data }) =>
    area.call("profile.setPicture", async (sock) => {
      try {
        await sock.updateProfilePicture(meJid(sock), Buffer.from(data, "base64"));
      } catch (err) {
        // sharp could not read the image: the request's file, not the network.
        if (/unsupported image format|Input buffer|corrupt|VipsJpeg|pngload/i.test(String((err as Error).message))) {
          throw invalid(
            "file",
            "imagem JPEG ou PNG inválida ou corrompida",
            "A foto do perfil não pôde ser lida como imagem.",
          );
        }
        throw err;
      }
      return {};
    }),

  "profile.removePicture": () =>
    area.call("profile.removePicture", async (sock) => {
      await sock.removeProfilePicture(meJid(sock));
      return {};
    }),
});
