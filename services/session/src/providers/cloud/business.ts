import {
  BUSINESS_PICTURE_MIN_SIDE,
  type BusinessProfile,
  type BusinessProfilePatch,
  invalid,
  isPictureType,
  type PhoneNumberInfo,
  type SessionOpHandlers,
} from "@gw/contracts";
import { imageSize } from "./image-size.ts";
import type { CloudLink } from "./link.ts";

/**
 * Business profile (spec 4.11, reference cloud-api.md §4) and the number's data on the operator
 * side (docs/official.md `GET /phone-number`), as the `business.*` session operations.
 */

const PROFILE_FIELDS = "about,address,description,email,profile_picture_url,websites,vertical";
export const PHONE_FIELDS =
  "display_phone_number,verified_name,name_status,quality_rating,messaging_limit_tier,throughput,status,code_verification_status,platform_type";

type GraphProfile = Partial<Record<keyof BusinessProfile, unknown>>;

function profileOf(p: GraphProfile | undefined): BusinessProfile {
  const str = (v: unknown) => (typeof v === "string" ? v : "");
  return {
    about: str(p?.about),
    address: str(p?.address),
    description: str(p?.description),
    email: str(p?.email),
    profile_picture_url: str(p?.profile_picture_url),
    vertical: str(p?.vertical),
    websites: Array.isArray(p?.websites) ? p.websites.filter((w): w is string => typeof w === "string") : [],
  };
}

export interface GraphPhoneNumber {
  id?: string;
  display_phone_number?: string;
  verified_name?: string;
  name_status?: string;
  quality_rating?: string;
  messaging_limit_tier?: string;
  throughput?: { level?: string };
  status?: string;
  code_verification_status?: string;
  platform_type?: string;
}

export function phoneInfoOf(phoneNumberId: string, n: GraphPhoneNumber): PhoneNumberInfo {
  return {
    phoneNumberId,
    displayPhoneNumber: n.display_phone_number ?? "",
    phone: (n.display_phone_number ?? "").replace(/\D/g, ""),
    verifiedName: n.verified_name ?? "",
    nameStatus: n.name_status ?? "UNKNOWN",
    qualityRating: n.quality_rating ?? "UNKNOWN",
    messagingLimitTier: n.messaging_limit_tier ?? "TIER_NOT_SET",
    throughput: n.throughput?.level ?? "NOT_APPLICABLE",
    status: n.status ?? "UNKNOWN",
    codeVerificationStatus: n.code_verification_status ?? "UNKNOWN",
    platformType: n.platform_type ?? "CLOUD_API",
  };
}

/** Square, at least 192x192, JPG or PNG (spec 4.11), checked before anything is uploaded. */
export function checkBusinessPicture(bytes: Buffer, mimetype: string): void {
  const size = imageSize(bytes);
  const invalidFile = (text: string) => invalid("file", text);
  if (!size || !isPictureType(size.type)) throw invalidFile("a imagem deve ser JPG ou PNG");
  if (mimetype && mimetype !== size.type)
    throw invalidFile(`file.mimetype diz ${mimetype}, mas a imagem é ${size.type}`);
  if (size.width !== size.height)
    throw invalidFile(`a imagem deve ser quadrada (recebida ${size.width}x${size.height})`);
  if (size.width < BUSINESS_PICTURE_MIN_SIDE) {
    throw invalidFile(
      `no mínimo ${BUSINESS_PICTURE_MIN_SIDE}x${BUSINESS_PICTURE_MIN_SIDE} (recebida ${size.width}x${size.height})`,
    );
  }
}

export function businessOps(link: CloudLink): SessionOpHandlers {
  const read = async () => {
    const { target, creds } = await link.ready();
    const res = await link.call("business.profile", () =>
      link.graph.get<{ data?: GraphProfile[] }>(target, `${creds.phoneNumberId}/whatsapp_business_profile`, {
        fields: PROFILE_FIELDS,
      }),
    );
    return profileOf(res.data?.[0]);
  };
  return {
    "business.profile": read,
    "business.updateProfile": async (patch: BusinessProfilePatch) => {
      const { target, creds } = await link.ready();
      await link.call("business.updateProfile", () =>
        link.graph.post(target, `${creds.phoneNumberId}/whatsapp_business_profile`, {
          messaging_product: "whatsapp",
          ...patch,
        }),
      );
      return read();
    },
    "business.setPicture": async ({ data, mimetype }) => {
      const bytes = Buffer.from(data, "base64");
      checkBusinessPicture(bytes, mimetype);
      const type = imageSize(bytes)!.type;
      const { target, creds } = await link.ready();
      const handle = await link.call("business.setPicture", async () => {
        // The operator's resumable upload (reference §4.3): a session on the app, the bytes, a handle.
        const app = await link.graph.get<{ id: string }>(target, "app");
        const session = await link.graph.post<{ id: string }>(target, `${app.id}/uploads`, undefined, {
          file_name: type === "image/png" ? "profile.png" : "profile.jpg",
          file_length: bytes.length,
          file_type: type,
        });
        const done = await link.graph.bytes<{ h: string }>(target, session.id, bytes, {
          authorization: `OAuth ${target.accessToken}`,
          file_offset: "0",
          "content-type": "application/octet-stream",
        });
        return done.h;
      });
      await link.call("business.setPicture", () =>
        link.graph.post(target, `${creds.phoneNumberId}/whatsapp_business_profile`, {
          messaging_product: "whatsapp",
          profile_picture_handle: handle,
        }),
      );
      return read();
    },
    "business.phoneNumber": async () => {
      const { target, creds } = await link.ready();
      const n = await link.call("business.phoneNumber", () =>
        link.graph.get<GraphPhoneNumber>(target, creds.phoneNumberId, { fields: PHONE_FIELDS }),
      );
      return phoneInfoOf(creds.phoneNumberId, n);
    },
  };
}
