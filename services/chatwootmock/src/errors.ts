/**
 * An answer of the Application API that is not a success, with Chatwoot's own body: `{error}` for
 * most refusals (RequestExceptionHandler), `{message, attributes}` for a record that failed its
 * validations, `{errors: [...]}` for Devise's missing sign-in.
 */
export class ChatwootError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(typeof body.error === "string" ? body.error : typeof body.message === "string" ? body.message : "error");
  }
}

export const notFound = () => new ChatwootError(404, { error: "Resource could not be found" });
/** `render_could_not_create_error`: what a rescued StandardError answers. */
export const couldNotCreate = (message: string) => new ChatwootError(422, { error: message });
/** ActiveRecord::RecordInvalid as Chatwoot renders it. */
export const recordInvalid = (errors: { attribute: string; message: string }[]) =>
  new ChatwootError(422, {
    message: errors.map((e) => e.message).join(", "),
    attributes: [...new Set(errors.map((e) => e.attribute))],
  });

/** Errors of the control API (ours, not Chatwoot's): `{error: {code, message}}`. */
export class ControlError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
