import { instanceExamples } from "./define.ts";
import { avatarLink, GROUP_ID, JOAO, MARIA, ME, NOW_S } from "./samples.ts";

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

/** Spec 4.9 presence (routers/presence.ts; test/e2e/presence.test.ts). */
export const presenceExamples = instanceExamples({
  presenceSet: {
    body: { presence: "typing", chatId: MARIA.id },
    response: done,
    errors: {
      validation_error: {
        message: "Campos inválidos.",
        details: { chatId: "informe o chatId: typing acontece numa conversa" },
      },
      not_found: { message: "Conversa não encontrada: o número não tem conta na rede." },
    },
  },
  presenceList: {
    response: [
      { id: MARIA.id, presences: [{ participant: MARIA.id, lastKnownPresence: "typing", lastSeen: null }] },
      {
        id: GROUP_ID,
        presences: [
          { participant: JOAO.id, lastKnownPresence: "recording", lastSeen: null },
          { participant: MARIA.id, lastKnownPresence: "online", lastSeen: null },
        ],
      },
      { id: JOAO.id, presences: [{ participant: JOAO.id, lastKnownPresence: "offline", lastSeen: NOW_S - 1_260 }] },
    ],
  },
  presenceGet: {
    path: { chatId: JOAO.id },
    response: {
      id: JOAO.id,
      presences: [{ participant: JOAO.id, lastKnownPresence: "offline", lastSeen: NOW_S - 1_260 }],
    },
    errors: {
      not_found: {
        message: "Nenhuma presença conhecida desta conversa: assine com POST /presence/{chatId}/subscribe.",
      },
    },
  },
  presenceSubscribe: {
    response: done,
    errors: { not_found: { message: "Conversa não encontrada: o número não tem conta na rede." } },
  },
});
