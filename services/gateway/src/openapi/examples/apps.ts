import { instanceExamples } from "./define.ts";
import { APP_ID, iso, NOW, NOW_S } from "./samples.ts";

const CALLS = {
  id: APP_ID,
  app: "calls" as const,
  config: {
    reject: true,
    message: "Não atendemos ligações por aqui. Mande sua mensagem que respondemos logo!",
    groups: true,
  },
  enabled: true,
  createdAt: NOW,
  updatedAt: NOW,
};
const NINTH_DIGIT = {
  id: "app_9r3t6y1u4i7o2p5a8s0d",
  app: "brazilian-phone-numbers" as const,
  config: { ninthDigit: "auto" },
  enabled: true,
  createdAt: iso(NOW_S - 30 * 86_400),
  updatedAt: iso(NOW_S - 30 * 86_400),
};
const notFound = { not_found: { message: "App não encontrado." } };

/** Spec 2.10 apps (routers/apps.ts; test/e2e/apps.test.ts; docs/apps.md). */
export const appsExamples = instanceExamples({
  listApps: { response: [NINTH_DIGIT, CALLS] },
  createApp: {
    summary: "Reject every incoming call and answer with a text",
    body: {
      app: "calls",
      config: { reject: true, message: CALLS.config.message, groups: true },
      enabled: true,
    },
    response: CALLS,
    errors: {
      validation_error: {
        message: "Campos inválidos.",
        details: { app: "a instância já tem um app calls; altere-o com PATCH" },
      },
    },
  },
  getApp: { response: CALLS, errors: notFound },
  updateApp: {
    summary: "Disable the app (its config is kept)",
    body: { enabled: false },
    response: { ...CALLS, enabled: false, updatedAt: iso(NOW_S + 600) },
    errors: {
      ...notFound,
      validation_error: { message: "Campos inválidos.", details: { "config.message": "message vazia" } },
    },
  },
  deleteApp: { response: { success: true }, errors: notFound },
});
