import { instanceExamples } from "./define.ts";
import {
  fileUrlRefused,
  GROUP_ID,
  IMAGE_URL,
  JOAO,
  MARIA,
  NOW_S,
  OFFICIAL_INSTANCE_ID,
  RECEIVED_MESSAGE_ID,
  SENT_MESSAGE_ID,
  SENT_NETWORK_ID,
} from "./samples.ts";

const sent = (chatId: string, networkId: string) => ({
  chatId,
  id: `true_${chatId}_${networkId}`,
  status: "sent" as const,
});
const official = { instanceId: OFFICIAL_INSTANCE_ID };
/** The operator's message ids (official gateway). */
const wamid = (id: string) => `wamid.HBgNNTUxMTk4ODg4Nzc3NxUCABEYEj${id}AA=`;
const POLL_MESSAGE_ID = `true_${GROUP_ID}_3EB0A7C2E95F14D8B6302A`;
const noAccount = {
  message: "O número não tem conta na rede de mensagens.",
  details: { chatId: "número sem conta na rede" },
};
const trial = { message: "Limite de 300 mensagens por dia do período de teste atingido." };
const sendErrors = { network_rejected: noAccount, trial_limit_reached: trial };
const fileErrors = { ...sendErrors, url_not_allowed: fileUrlRefused };

/** Spec 4.4 sending and the other message routes (routers/messages.ts, chat-basics.ts; test/e2e/send-*.test.ts). */
export const messagesExamples = instanceExamples({
  sendText: {
    summary: "Sent now (201); with X-Queue: true or a delay, 202 and the queue item",
    body: {
      chatId: MARIA.phone,
      text: "Oi, Maria! Temos sim o tênis azul no 38. Quer que eu separe um para você?",
      reply_to: RECEIVED_MESSAGE_ID,
    },
    response: sent(MARIA.id, SENT_NETWORK_ID),
    errors: sendErrors,
  },
  sendImage: {
    body: { chatId: MARIA.id, file: { url: IMAGE_URL }, caption: "Tênis de corrida azul, R$ 289,90" },
    response: sent(MARIA.id, "3EB0F2A81C6D49E7B0D3"),
    errors: fileErrors,
  },
  sendFile: {
    body: {
      chatId: MARIA.id,
      file: {
        url: "https://cdn.lojacentro.com.br/notas/NF-48213.pdf",
        filename: "NF-48213.pdf",
        mimetype: "application/pdf",
      },
      caption: "Sua nota fiscal do pedido #48213",
    },
    response: sent(MARIA.id, "3EB08D1F47A2C95E60B4"),
    errors: fileErrors,
  },
  sendVoice: {
    body: { chatId: MARIA.id, file: { url: "https://cdn.lojacentro.com.br/audios/boas-vindas.mp3" }, convert: true },
    response: sent(MARIA.id, "3EB05C9E2D71F48A3B06"),
    errors: fileErrors,
  },
  sendVideo: {
    body: {
      chatId: MARIA.id,
      file: { url: "https://cdn.lojacentro.com.br/videos/vitrine.mp4" },
      convert: false,
      caption: "Chegou a coleção nova!",
    },
    response: sent(MARIA.id, "3EB0B4E71A9C2D58F306"),
    errors: fileErrors,
  },
  sendSticker: {
    body: { chatId: MARIA.id, file: { url: "https://cdn.lojacentro.com.br/figurinhas/obrigado.webp" } },
    response: sent(MARIA.id, "3EB0D63A9F0E12C4B875"),
    errors: fileErrors,
  },
  sendLinkPreview: {
    body: {
      chatId: MARIA.id,
      text: "Confira a promoção: https://www.lojacentro.com.br/verao",
      preview: {
        title: "Promoção de verão | Loja Centro",
        description: "Até 30% de desconto em toda a loja até domingo.",
        url: "https://www.lojacentro.com.br/verao",
        image: { url: "https://cdn.lojacentro.com.br/promocoes/verao-2026.jpg" },
      },
    },
    response: sent(MARIA.id, "3EB0E8C25B1A7F96D043"),
    errors: fileErrors,
  },
  sendList: {
    summary: "Official gateway (standard instances answer 501 not_supported)",
    path: official,
    body: {
      chatId: MARIA.phone,
      message: {
        title: "Como podemos ajudar?",
        button: "Ver opções",
        description: "Escolha um assunto",
        footer: "Loja Centro",
        sections: [
          {
            title: "Pedidos",
            rows: [
              { title: "Rastrear pedido", rowId: "pedido_rastrear", description: "Onde está meu pedido" },
              { title: "Trocar produto", rowId: "pedido_trocar" },
            ],
          },
          { title: "Atendimento", rows: [{ title: "Falar com atendente", rowId: "atendente" }] },
        ],
      },
    },
    response: sent(MARIA.id, wamid("QjE4RjZBMjE3QzNEOTY2Ng")),
    errors: sendErrors,
  },
  sendPoll: {
    body: {
      chatId: GROUP_ID,
      poll: {
        name: "Qual dia para a reunião de metas?",
        options: ["Segunda", "Terça", "Quarta"],
        multipleAnswers: false,
      },
      mentions: ["all"],
    },
    response: sent(GROUP_ID, "3EB0A7C2E95F14D8B6302A"),
    errors: sendErrors,
  },
  sendPollVote: {
    summary: "The chat is taken from the poll's id; the answer also says success",
    body: { pollMessageId: POLL_MESSAGE_ID, votes: [["Terça"]] },
    response: { success: true, ...sent(GROUP_ID, "3EB01B6D8E4F29A7C5E3") },
    errors: sendErrors,
  },
  sendLocation: {
    body: {
      chatId: MARIA.id,
      latitude: -23.5558,
      longitude: -46.6622,
      title: "Loja Centro",
      address: "Rua Augusta, 1500 - Consolação, São Paulo - SP",
    },
    response: sent(MARIA.id, "3EB07E2C5A9D1B48F6A0"),
    errors: sendErrors,
  },
  sendContactVcard: {
    body: {
      chatId: MARIA.id,
      contacts: [
        {
          fullName: "João Pereira",
          phoneNumber: "+55 21 99999-8888",
          organization: "Loja Centro",
          whatsappId: JOAO.phone,
        },
      ],
    },
    response: sent(MARIA.id, "3EB0C9A4F1E7D2368B5D"),
    errors: sendErrors,
  },
  sendForward: {
    body: { chatId: JOAO.id, messageId: SENT_MESSAGE_ID },
    response: sent(JOAO.id, "3EB0F71D3C8A5E26B49C"),
    errors: sendErrors,
  },
  sendEvent: {
    body: {
      chatId: GROUP_ID,
      event: {
        name: "Reunião de metas",
        startTime: NOW_S + 5 * 86_400,
        endTime: NOW_S + 5 * 86_400 + 3_600,
        description: "Fechamento do mês e metas de fevereiro.",
        location: { name: "Loja Centro — sala de reuniões" },
        extraGuestsAllowed: false,
      },
    },
    response: sent(GROUP_ID, "3EB02F8B6D1C7A94E530"),
    errors: sendErrors,
  },
  sendTemplate: {
    summary: "Official gateway: the only way to open a conversation or to write after 24 h",
    path: official,
    body: {
      chatId: MARIA.phone,
      template: {
        name: "pedido_enviado",
        language: "pt_BR",
        body: ["Maria", "#48213", "sexta-feira"],
        buttons: [{ type: "url", text: "48213" }],
      },
    },
    response: sent(MARIA.id, wamid("OUE2QzMwRDlFNEYyNzFCODU1")),
    errors: sendErrors,
  },
  sendButtons: {
    path: official,
    body: {
      chatId: MARIA.phone,
      text: "Seu pedido #48213 chega sexta-feira. Deseja confirmar o endereço de entrega?",
      buttons: [
        { id: "confirmar", title: "Confirmar" },
        { id: "alterar", title: "Alterar endereço" },
      ],
      footer: "Loja Centro",
    },
    response: sent(MARIA.id, wamid("MkY4QzFBNzNFNjA1RDQ5QjIx")),
    errors: sendErrors,
  },
  seen: {
    body: { messageIds: [RECEIVED_MESSAGE_ID] },
    response: {},
    errors: { validation_error: { message: "Campos inválidos.", details: { chatId: "informe o chatId" } } },
  },
  reaction: {
    body: { messageId: RECEIVED_MESSAGE_ID, reaction: "👍" },
    response: { chatId: MARIA.id, id: `true_${MARIA.id}_3EB04A9C7E2D1F58B603`, status: "ok" },
    errors: { trial_limit_reached: trial },
  },
  newMessageId: { response: { id: "3EB0C431C26A1916D2E8F0" } },
  typingStart: {
    body: { chatId: MARIA.phone },
    response: { success: true },
    errors: { validation_error: { message: "Campos inválidos.", details: { chatId: "informe o chatId" } } },
  },
  typingStop: {
    body: { chatId: MARIA.phone },
    response: { success: true },
    errors: { validation_error: { message: "Campos inválidos.", details: { chatId: "informe o chatId" } } },
  },
});
