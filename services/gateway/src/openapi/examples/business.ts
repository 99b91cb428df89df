import { instanceExamples } from "./define.ts";
import { OFFICIAL_INSTANCE_ID, OFFICIAL_PHONE, PNG_BASE64 } from "./samples.ts";

const official = { instanceId: OFFICIAL_INSTANCE_ID };
const PROFILE = {
  about: "Calçados e acessórios desde 1998.",
  address: "Rua Augusta, 1500 - Consolação, São Paulo - SP, 01304-001",
  description: "Loja de calçados esportivos e casuais. Entregamos em toda a Grande São Paulo.",
  email: "contato@lojacentro.com.br",
  profile_picture_url:
    "https://pps.whatsapp.net/v/t61.24694-24/472081935_1187346629_n.jpg?ccb=11-4&oh=01_Q5AaIA7x&oe=6791C3D4",
  vertical: "RETAIL",
  websites: ["https://www.lojacentro.com.br"],
};

/** Spec 4.11 business profile and the number's operator data (routers/business.ts; test/e2e/official-business.test.ts). */
export const businessExamples = instanceExamples({
  getBusinessProfile: { path: official, response: { data: [PROFILE] } },
  updateBusinessProfile: {
    path: official,
    body: {
      about: "Calçados e acessórios desde 1998.",
      websites: ["https://www.lojacentro.com.br", "https://www.instagram.com/lojacentro"],
    },
    response: {
      data: [{ ...PROFILE, websites: ["https://www.lojacentro.com.br", "https://www.instagram.com/lojacentro"] }],
    },
    errors: {
      validation_error: {
        message: "Campos inválidos.",
        details: { websites: "cada site começa com http:// ou https://" },
      },
    },
  },
  setBusinessPicture: {
    path: official,
    summary: "A square PNG of at least 192x192, in base64 (`data` shortened here)",
    body: { file: { data: PNG_BASE64, mimetype: "image/png" } },
    response: {
      data: [
        {
          ...PROFILE,
          profile_picture_url:
            "https://pps.whatsapp.net/v/t61.24694-24/473019826_1190021457_n.jpg?ccb=11-4&oh=01_Q5AaIB2m&oe=6791C3D4",
        },
      ],
    },
    errors: {
      validation_error: {
        message: "Campos inválidos.",
        details: { file: "a imagem deve ser quadrada (recebida 640x480)" },
      },
    },
  },
  phoneNumber: {
    path: official,
    response: {
      phoneNumberId: "109876543210987",
      displayPhoneNumber: "+55 11 3030-4040",
      phone: OFFICIAL_PHONE,
      verifiedName: "Loja Centro",
      nameStatus: "APPROVED",
      qualityRating: "GREEN",
      messagingLimitTier: "TIER_2K",
      throughput: "STANDARD",
      status: "CONNECTED",
      codeVerificationStatus: "VERIFIED",
      platformType: "CLOUD_API",
    },
  },
});
