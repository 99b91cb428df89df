import { instanceExamples } from "./define.ts";
import { avatarLink, ME } from "./samples.ts";

const done = { success: true as const };

/** Spec 4.3 profile (routers/profile.ts; test/e2e/profile.test.ts). */
export const profileExamples = instanceExamples({
  profileGet: {
    response: {
      id: ME.id,
      name: ME.pushName,
      picture: avatarLink(ME.id),
      about: "Atendimento de segunda a sábado, das 9h às 18h.",
    },
  },
  profileSetName: {
    body: { name: "Loja Centro Calçados" },
    response: done,
    errors: { validation_error: { message: "Campos inválidos.", details: { name: "nome: até 25 caracteres" } } },
  },
  profileSetStatus: {
    body: { status: "Atendimento de segunda a sábado, das 9h às 18h." },
    response: done,
    errors: {
      validation_error: { message: "Campos inválidos.", details: { status: "status: até 139 caracteres" } },
    },
  },
  profileSetPicture: {
    body: { file: { url: "https://cdn.lojacentro.com.br/marca/logo-640.png" } },
    response: done,
    errors: {
      validation_error: {
        message: "A foto do perfil deve ser JPEG ou PNG.",
        details: { "file.mimetype": "use image/jpeg ou image/png (recebido image/webp)" },
      },
    },
  },
  profileRemovePicture: { response: done },
});
