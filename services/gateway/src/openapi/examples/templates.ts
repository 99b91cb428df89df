import { instanceExamples } from "./define.ts";
import { OFFICIAL_INSTANCE_ID } from "./samples.ts";

const official = { instanceId: OFFICIAL_INSTANCE_ID };
const ORDER_COMPONENTS = [
  {
    type: "BODY",
    text: "Olá, {{1}}! Seu pedido {{2}} saiu para entrega e chega até {{3}}.",
    example: { body_text: [["Maria", "#48213", "sexta-feira"]] },
  },
  { type: "FOOTER", text: "Loja Centro" },
  {
    type: "BUTTONS",
    buttons: [
      { type: "URL", text: "Acompanhar pedido", url: "https://lojacentro.com.br/pedidos/{{1}}", example: ["48213"] },
    ],
  },
];
const ORDER_SHIPPED = {
  id: "1284733019264811",
  name: "pedido_enviado",
  language: "pt_BR",
  category: "UTILITY",
  status: "APPROVED",
  components: ORDER_COMPONENTS,
  parameter_format: "POSITIONAL",
  quality_score: { score: "GREEN", date: 1_768_400_000 },
  rejected_reason: "NONE",
};
const PROMO = {
  id: "1284733019264999",
  name: "promocao_verao",
  language: "pt_BR",
  category: "MARKETING",
  status: "PENDING",
  components: [
    { type: "HEADER", format: "TEXT", text: "Promoção de verão ☀️" },
    {
      type: "BODY",
      text: "{{1}}, toda a loja com até 30% de desconto até domingo.",
      example: { body_text: [["Maria"]] },
    },
  ],
  parameter_format: "POSITIONAL",
  quality_score: null,
  rejected_reason: null,
};

/** Spec 4.12 templates (routers/templates.ts; test/e2e/official-business.test.ts). */
export const templatesExamples = instanceExamples({
  listTemplates: {
    path: official,
    query: { language: "pt_BR", limit: 2 },
    errors: {
      validation_error: { message: "Campos inválidos.", details: { language: "language: ex. pt_BR, en_US, es" } },
    },
    response: {
      data: [ORDER_SHIPPED, PROMO],
      paging: { cursors: { before: "QVFIUmJ4ZAzVfMk1YU2hZAQ", after: "QVFIUnN1d0FiLUZAwc2c0ZA" } },
    },
  },
  createTemplate: {
    path: official,
    body: { name: "pedido_enviado", language: "pt_BR", category: "UTILITY", components: ORDER_COMPONENTS },
    response: { category: "UTILITY", id: ORDER_SHIPPED.id, status: "ok" },
    errors: {
      validation_error: {
        message: "Campos inválidos.",
        details: { name: "name: letras minúsculas, dígitos e _ (até 512)" },
      },
    },
  },
  deleteTemplate: {
    path: { ...official, name: "promocao_verao" },
    query: { id: PROMO.id },
    response: { success: true },
  },
});
