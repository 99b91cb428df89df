import { instanceExamples } from "./define.ts";
import { JOAO, MARIA } from "./samples.ts";

const unknownMapping = { not_found: { message: "Mapeamento de LID desconhecido para esta instância." } };

/** Spec 4.14 LID mappings (routers/lids.ts). */
export const lidsExamples = instanceExamples({
  listLids: {
    query: { limit: 100, offset: 0 },
    errors: { validation_error: { message: "Campos inválidos.", details: { limit: "limit vai de 1 a 1000" } } },
    response: [
      { lid: MARIA.lid, pn: MARIA.id },
      { lid: JOAO.lid, pn: JOAO.id },
    ],
  },
  countLids: { response: { count: 2 } },
  getLid: { path: { lid: MARIA.lid }, response: { lid: MARIA.lid, pn: MARIA.id }, errors: unknownMapping },
  getLidByPhone: { path: { phone: MARIA.phone }, response: { lid: MARIA.lid, pn: MARIA.id }, errors: unknownMapping },
});
