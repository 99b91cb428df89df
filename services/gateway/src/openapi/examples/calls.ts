import { instanceExamples } from "./define.ts";
import { MARIA } from "./samples.ts";

/** Spec 4.14 calls (routers/calls.ts; test/e2e/calls.test.ts; docs/calls.md). */
export const callsExamples = instanceExamples({
  rejectCall: {
    summary: "The caller is taken from the call's call.received when `from` is omitted",
    body: { from: MARIA.phone },
    response: { success: true },
    errors: {
      not_found: { message: "Chamada desconhecida (informe from, quem ligou)." },
      validation_error: { message: "Campos inválidos.", details: { from: "quem ligou: número ou id" } },
    },
  },
});
