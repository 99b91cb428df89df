import { adminExamples } from "./define.ts";
import {
  ACCOUNT_ID,
  INSTANCE,
  INSTANCE_ID,
  iso,
  NOW,
  NOW_S,
  OFFICIAL_INSTANCE_ID,
  OFFICIAL_PHONE,
  WEBHOOK_ID,
} from "./samples.ts";

const ACCOUNT = {
  id: ACCOUNT_ID,
  name: "Loja Centro Calçados Ltda",
  email: "ti@lojacentro.com.br",
  createdAt: INSTANCE.createdAt,
  clientToken: { enabled: false, requireOnAllCalls: false },
};
const OTHER_ACCOUNT = {
  id: "acc_3c9v5b1n7m2q8w4e6r0t2y5h",
  name: "Padaria Bom Dia",
  email: null,
  createdAt: iso(NOW_S - 10 * 86_400),
  clientToken: { enabled: true, requireOnAllCalls: true },
};
const TOKEN = "gwt_q7Vb2nM9xK4pL1cR8tW5yH3jF6dS0aZ2eU7iO4kXcMg";
const accountNotFound = { not_found: { message: "Conta não encontrada." } };
const instanceNotFound = { not_found: { message: "Instância não encontrada." } };

/** A new instance: STOPPED until started; the account's first has a trial. */
const NEW_OFFICIAL = {
  ...INSTANCE,
  id: OFFICIAL_INSTANCE_ID,
  name: "Loja Centro (oficial)",
  kind: "official" as const,
  phone: "",
  pushName: "",
  provider: "cloud" as const,
  connectionStatus: "STOPPED" as const,
  currentPeriodEnd: null,
  provisionedAt: NOW,
  createdAt: NOW,
  cloud: {
    phoneNumberId: "109876543210987",
    wabaId: "102938475610293",
    apiBaseUrl: "https://graph.facebook.com/v25.0",
  },
};

/** Control plane: accounts (routers/admin/accounts.ts; test/e2e/admin.test.ts; docs/api.md). */
export const adminAccountsExamples = adminExamples("accounts", {
  create: {
    body: { name: ACCOUNT.name, email: "ti@lojacentro.com.br" },
    response: { account: ACCOUNT },
    errors: { validation_error: { message: "Campos inválidos.", details: { email: "e-mail inválido" } } },
  },
  list: {
    query: { limit: 2, offset: 0 },
    response: { data: [ACCOUNT, OTHER_ACCOUNT], total: 2 },
    errors: { validation_error: { message: "Campos inválidos.", details: { offset: "offset vai até 999500" } } },
  },
  get: { response: { account: ACCOUNT }, errors: accountNotFound },
  issueClientToken: {
    body: { requireOnAllCalls: true },
    response: { clientToken: "gwc_Hn4xB8vQ2mK6rT1wZ9cL3yP7dF5gJ0sAe2UiO8kXcMb", requireOnAllCalls: true },
    errors: accountNotFound,
  },
  setClientTokenRequirement: {
    body: { requireOnAllCalls: false },
    response: { account: { ...ACCOUNT, clientToken: { enabled: true, requireOnAllCalls: false } } },
    errors: {
      ...accountNotFound,
      validation_error: {
        message: "A conta não tem Client-Token.",
        details: { requireOnAllCalls: "crie um Client-Token antes de exigi-lo" },
      },
    },
  },
  disableClientToken: { response: { account: ACCOUNT }, errors: accountNotFound },
});

/** Control plane: instances (routers/admin/instances.ts; test/e2e/admin.test.ts; docs/api.md, official.md). */
export const adminInstancesExamples = adminExamples("instances", {
  create: {
    summary: "An official-gateway instance with the operator's credentials (a standard one needs only name and kind)",
    body: {
      accountId: ACCOUNT_ID,
      name: NEW_OFFICIAL.name,
      kind: "official",
      cloud: {
        phoneNumberId: NEW_OFFICIAL.cloud.phoneNumberId,
        wabaId: NEW_OFFICIAL.cloud.wabaId,
        accessToken: "EAAGm0PX4ZCpsBO7kZBZAzqL1vT9cR2wY5hN8jF3dS6aK0eU4iO7xM1bQ",
        appSecret: "5f2c8e1a9b7d3f6e0c4a8b2d7e1f9c3a",
      },
    },
    response: { instance: NEW_OFFICIAL, token: TOKEN },
    errors: {
      ...accountNotFound,
      validation_error: {
        message: "Provedor incompatível com o tipo de instância.",
        details: { provider: "instâncias official aceitam: cloud" },
      },
    },
  },
  list: {
    query: { accountId: ACCOUNT_ID, limit: 2 },
    errors: { validation_error: { message: "Campos inválidos.", details: { cursor: "cursor inválido" } } },
    response: {
      data: [
        INSTANCE,
        { ...NEW_OFFICIAL, phone: OFFICIAL_PHONE, pushName: "Loja Centro", connectionStatus: "WORKING" },
      ],
      nextCursor: null,
    },
  },
  get: { response: { instance: INSTANCE }, errors: instanceNotFound },
  update: {
    path: { instanceId: OFFICIAL_INSTANCE_ID },
    summary: "Rotate an official instance's access token (it reconnects with it at once)",
    body: { cloud: { accessToken: "EAAGm0PX4ZCpsBO9nQ2wE5rT8yU1iO4pA7sD0fG3hJ6kL9zX2cV5bN" } },
    response: {
      instance: { ...NEW_OFFICIAL, phone: OFFICIAL_PHONE, pushName: "Loja Centro", connectionStatus: "STARTING" },
    },
    errors: {
      ...instanceNotFound,
      validation_error: {
        message: "Campos inválidos.",
        details: { accessToken: "accessToken curto demais", "cloud.accessToken": "accessToken curto demais" },
      },
    },
  },
  delete: { response: { success: true }, errors: instanceNotFound },
  rotateToken: { response: { token: "gwt_Zx8cV2bN5mQ1wE7rT4yU0iO3pA6sD9fG2hJ5kL8zXc" }, errors: instanceNotFound },
  setBilling: {
    summary: "Payment overdue: usable until graceUntil, then 402",
    body: {
      billingStatus: "past_due",
      currentPeriodEnd: "2026-02-01T00:00:00Z",
      graceUntil: "2026-01-22T00:00:00Z",
    },
    response: {
      instance: {
        ...INSTANCE,
        billingStatus: "past_due",
        currentPeriodEnd: "2026-02-01T00:00:00.000Z",
        graceUntil: "2026-01-22T00:00:00.000Z",
      },
    },
    errors: instanceNotFound,
  },
  setProvisioning: {
    body: { provisioned: true },
    response: { instance: INSTANCE },
    errors: instanceNotFound,
  },
  webhookDeactivations: {
    query: { limit: 100 },
    response: {
      data: [
        {
          webhookId: WEBHOOK_ID,
          instanceId: INSTANCE_ID,
          url: "https://api.lojacentro.com.br/whatsapp/webhook",
          reason: "failing without a success for 24 h",
          at: iso(NOW_S - 3 * 86_400),
        },
      ],
    },
  },
});
