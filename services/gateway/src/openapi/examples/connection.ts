import { instanceExamples } from "./define.ts";
import { INSTANCE, ME, NOW_S } from "./samples.ts";

const PASSKEY_CHALLENGE = "Zk8r3PqV1xT9bN2mC6wH4yJ0aL5sD7fE3gK1uQ9oW2c";
const b64url = (text: string) => Buffer.from(text, "utf8").toString("base64url");
const notScanning = (what: string, status = "WORKING") => ({
  message: `${what} exige connectionStatus SCAN_QR_CODE; estado atual: ${status}.`,
  details: { connectionStatus: `esperado SCAN_QR_CODE, atual ${status}` },
});
const notWorking = (what: string) => ({
  message: `${what} exige connectionStatus WORKING; estado atual: SCAN_QR_CODE.`,
  details: { connectionStatus: "esperado WORKING, atual SCAN_QR_CODE" },
});
const unpaired = { ...INSTANCE, phone: "", pushName: "" };
const CAPPING = {
  cappingStatus: "NONE",
  cycleStart: NOW_S - 9 * 86_400,
  cycleEnd: NOW_S + 21 * 86_400,
  mvStatus: "NOT_ELIGIBLE",
  oteStatus: "NOT_ELIGIBLE",
  totalQuota: 0,
  usedQuota: 0,
};
const TIMELOCK = { enforcementType: "DEFAULT", isActive: false, timeEnforcementEnds: 0 };

/** Spec 4.1 instance and connection, 4.2 pairing (routers/instance.ts, session.ts; test/e2e/sessions.test.ts). */
export const connectionExamples = instanceExamples({
  get: { response: { instance: INSTANCE } },
  updateSettings: {
    summary: "Stop group events and keep no message history; the other settings stay",
    body: { ignore: { groups: true }, storage: { messages: false } },
    response: {
      instance: {
        ...INSTANCE,
        settings: {
          ...INSTANCE.settings,
          ignore: { ...INSTANCE.settings.ignore, groups: true },
          storage: { ...INSTANCE.settings.storage, messages: false },
        },
      },
    },
    errors: {
      validation_error: {
        message: "Campos inválidos.",
        details: {
          deviceName: "o nome do dispositivo deve ter no máximo 40 caracteres",
          "client.deviceName": "o nome do dispositivo deve ter no máximo 40 caracteres",
        },
      },
    },
  },
  start: {
    summary: "A stopped, paired instance: STARTING now, WORKING once connected (no QR code)",
    response: { instance: { ...INSTANCE, connectionStatus: "STARTING" } },
  },
  stop: { response: { instance: { ...INSTANCE, connectionStatus: "STOPPED" } } },
  restart: { response: { instance: { ...INSTANCE, connectionStatus: "STARTING" } } },
  logout: {
    body: { apps: { purge: true } },
    response: { instance: { ...unpaired, connectionStatus: "STOPPED" } },
  },
  qrCode: {
    summary: "format=raw: the QR text only (format=image adds the PNG in `data`)",
    query: { format: "raw" },
    response: {
      data: "",
      mimetype: "text/plain",
      value:
        "2@Y7gK3pQz9vXb1mN5rT8wL2cF6hJ0dS4aE7iU3oP1kZxCvBnMqW,kR4d2X9vLp7QmZ3sT1bN8yH5cF0wJ6gA2eU4iO7rS1k=,bG9qZ2tQ3zV8mN1xR5tY7wC2dF4hJ6kL9pA0sE3uI5o=,aX3pL8mQ2wN5rT7yV1bC4dF6gH9jK0sZ2eU5iO8qR3t=",
    },
    errors: { instance_not_connected: notScanning("O QR code") },
  },
  pairingCode: {
    body: { phoneNumber: "5511977776666" },
    response: { success: true, code: "K7QH2M9X" },
    errors: {
      instance_not_connected: notScanning("O código de pareamento"),
      not_supported: {
        message:
          "Envio do código por SMS ou ligação não é suportado em instâncias padrão. Omita o campo method: o código é exibido na resposta para ser digitado no WhatsApp (Aparelhos conectados > Conectar com número de telefone).",
      },
      validation_error: {
        message: "Campos inválidos.",
        details: { phoneNumber: "informe o número no formato internacional, só dígitos" },
      },
    },
  },
  passkeyChallenge: {
    summary: "Where the provider supports passkeys (Baileys answers 501 not_supported)",
    response: {
      challenge: PASSKEY_CHALLENGE,
      rpId: "web.whatsapp.com",
      timeout: 60_000,
      userVerification: "preferred",
      allowCredentials: [{ id: "q3V8mZ1xK5rT9wN2bL7cH4yJ", type: "public-key", transports: ["internal", "hybrid"] }],
      extensions: {},
    },
    errors: { instance_not_connected: notScanning("O passkey") },
  },
  passkey: {
    body: {
      id: "q3V8mZ1xK5rT9wN2bL7cH4yJ",
      rawId: "q3V8mZ1xK5rT9wN2bL7cH4yJ",
      type: "public-key",
      response: {
        authenticatorData: "SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MFAAAABQ",
        clientDataJSON: b64url(
          JSON.stringify({ type: "webauthn.get", challenge: PASSKEY_CHALLENGE, origin: "https://web.whatsapp.com" }),
        ),
        signature: "MEUCIQDx7kP3mZ9vQ1rT5wN8bL2cH6yJ4aF0sE7gU3iO1kZxCgIgVb9nM2qW5rT8yL1cF4hJ7kP0sA3eU6iO9zX2vB5nM8",
        userHandle: b64url(ME.phone),
      },
    },
    response: { success: true },
    errors: { instance_not_connected: notScanning("O passkey") },
  },
  passkeyConfirmation: {
    response: { code: "482913" },
    errors: { instance_not_connected: notScanning("O passkey") },
  },
  passkeyConfirm: {
    response: { success: true },
    errors: { instance_not_connected: notScanning("O passkey") },
  },
  me: {
    response: {
      id: ME.id,
      jid: `${ME.phone}@s.whatsapp.net`,
      lid: ME.lid,
      pushName: ME.pushName,
      messageCapping: CAPPING,
      reachoutTimelock: TIMELOCK,
    },
    errors: { instance_not_connected: notWorking("Os dados da conta") },
  },
  capping: { response: CAPPING, errors: { instance_not_connected: notWorking("A cota") } },
  timelock: { response: TIMELOCK, errors: { instance_not_connected: notWorking("A restrição") } },
});
