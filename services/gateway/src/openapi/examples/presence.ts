import { instanceExamples } from "./define.ts";
import { GROUP_ID, JOAO, MARIA, NOW_S } from "./samples.ts";

const done = { success: true as const };

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
      // Not subscribed yet: the first read subscribes, and a number without an account is a 404.
      not_found: { message: "Conversa não encontrada: o número não tem conta na rede." },
    },
  },
  presenceSubscribe: {
    response: done,
    errors: { not_found: { message: "Conversa não encontrada: o número não tem conta na rede." } },
  },
});
