import { instanceExamples } from "./define.ts";
import { GROUP_ID, HIDDEN_LID, JOAO, MARIA } from "./samples.ts";

const NEW_CUSTOMER = { id: "1", name: "Novo cliente", color: 0, colorHex: "#ff9485" };
const PENDING_PAYMENT = { id: "2", name: "Pagamento pendente", color: 1, colorHex: "#64c4ff" };
const VIP = { id: "3", name: "Cliente VIP", color: 16, colorHex: "#ffaf04" };
const ORDER_DONE = { id: "4", name: "Pedido finalizado", color: 5, colorHex: "#55ccb3" };

const unknownLabel = {
  message: "Etiqueta não encontrada.",
  details: { labelId: "a etiqueta 9 não existe nesta conta" },
};
const personal = {
  message: "Etiquetas são um recurso do WhatsApp Business: o número desta instância é uma conta pessoal.",
  details: { account: "conta pessoal: etiquetas exigem uma conta comercial (WhatsApp Business)" },
};

/** Spec 4.7 labels (routers/labels.ts; test/e2e/labels.test.ts). */
export const labelsExamples = instanceExamples({
  labelsList: {
    response: [NEW_CUSTOMER, PENDING_PAYMENT, VIP, ORDER_DONE],
    errors: { network_rejected: personal },
  },
  labelsCreate: {
    body: { name: "Cliente VIP", colorHex: "#ffaf04" },
    response: VIP,
    errors: {
      network_rejected: personal,
      validation_error: {
        message: "Campos inválidos.",
        details: { colorHex: "colorHex: use #rrggbb" },
      },
    },
  },
  labelsOfChat: {
    response: [PENDING_PAYMENT, VIP],
    errors: {
      not_found: {
        message: "Conversa não encontrada.",
        details: { chatId: "5511900000000@c.us: número sem conta na rede, ou grupo do qual este número não participa" },
      },
    },
  },
  labelsSetChat: {
    body: { labels: [{ id: "2" }, { id: "3" }] },
    response: { success: true, labels: [PENDING_PAYMENT, VIP] },
    errors: {
      not_found: { message: "Etiqueta não encontrada.", details: { labels: "a etiqueta 9 não existe nesta conta" } },
    },
  },
  labelsUpdate: {
    body: { name: "Cliente VIP ouro", color: 16 },
    response: { ...VIP, name: "Cliente VIP ouro" },
    errors: { not_found: unknownLabel },
  },
  labelsDelete: { response: {}, errors: { not_found: unknownLabel } },
  labelsChats: {
    response: [{ id: MARIA.id }, { id: JOAO.id }, { id: HIDDEN_LID }, { id: GROUP_ID }],
    errors: { not_found: unknownLabel },
  },
});
