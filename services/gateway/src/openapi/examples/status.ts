import { instanceExamples } from "./define.ts";
import { JOAO, MARIA } from "./samples.ts";

const POST_ID = "3EB05F2A9C41D7E8B36A01";
const posted = (id: string, audienceSize: number) => ({
  chatId: "status@broadcast" as const,
  id: `true_status@broadcast_${id}`,
  status: "sent" as const,
  audienceSize,
});
const noAudience = {
  message: "Campos inválidos.",
  details: {
    contacts: "informe contacts: a instância não tem conversas individuais guardadas para formar o público padrão",
  },
};

/** Spec 4.8 status posts (routers/status.ts; test/e2e/status.test.ts). */
export const statusExamples = instanceExamples({
  statusText: {
    summary: "A text post with its own id (GET /status/new-message-id), to the instance's chats",
    body: {
      id: POST_ID,
      text: "Promoção de verão: 20% de desconto em toda a loja até domingo! ☀️",
      backgroundColor: "#1E88E5",
      font: 1,
    },
    response: posted(POST_ID, 248),
    errors: { validation_error: noAudience },
  },
  statusImage: {
    body: {
      contacts: [MARIA.phone, JOAO.id],
      file: { url: "https://cdn.lojacentro.com.br/promocoes/verao-2026.jpg" },
      caption: "Coleção de verão chegou!",
    },
    response: posted("3EB0B7D24E9A1C6F508D32", 2),
    errors: {
      validation_error: {
        message: "Campos inválidos.",
        details: { file: "a imagem deve ser JPEG, PNG ou WEBP (recebido application/pdf)" },
      },
    },
  },
  statusVoice: {
    body: {
      file: { url: "https://cdn.lojacentro.com.br/audios/aviso-horario.mp3" },
      convert: true,
      backgroundColor: "#43A047",
    },
    response: posted("3EB0E13C7A5D92F4B8610C", 248),
    errors: { validation_error: noAudience },
  },
  statusVideo: {
    body: {
      file: { url: "https://cdn.lojacentro.com.br/videos/vitrine.mp4" },
      convert: false,
      caption: "Nossa vitrine nova",
    },
    response: posted("3EB0492F8C1A6D3E7B5F90", 248),
    errors: { validation_error: noAudience },
  },
  statusDelete: {
    body: { id: `true_status@broadcast_${POST_ID}` },
    response: {
      chatId: "status@broadcast",
      id: `true_status@broadcast_${POST_ID}`,
      status: "deleted",
      audienceSize: 248,
    },
    errors: {
      not_found: { message: "Status não encontrado: só se apagam status publicados por esta instância." },
      validation_error: { message: "Campos inválidos.", details: { id: "este id não é de um status" } },
    },
  },
  statusNewMessageId: { response: { id: POST_ID } },
});
