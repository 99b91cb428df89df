import { z } from "zod";

/**
 * The operator credentials of an official-gateway instance (`cloud` on `POST` and `PATCH
 * /v1/admin/instances`): these names, so that operators' scripts can rely on them. The access
 * token and the app secret are sealed at rest and never answered.
 */
const graphId = (what: string) => z.string(`informe ${what}`).regex(/^\d{1,32}$/, `${what}: o id numérico do operador`);

export const cloudCredentialsInput = z.object(
  {
    phoneNumberId: graphId("phoneNumberId"),
    wabaId: graphId("wabaId"),
    accessToken: z.string("informe accessToken").min(8, "accessToken curto demais").max(2048),
    appSecret: z.string("informe appSecret").min(8, "appSecret curto demais").max(512),
    apiBaseUrl: z
      .url({ protocol: /^https?$/, message: "apiBaseUrl: uma URL http(s), com o caminho da versão" })
      .max(512)
      .optional()
      .meta({
        description:
          "The Graph root with its version path (default the operator's Graph API at the pinned version); calls go to `{apiBaseUrl}/{phoneNumberId}/messages`",
      }),
  },
  "informe cloud { phoneNumberId, wabaId, accessToken, appSecret }",
);
export type CloudCredentialsInput = z.infer<typeof cloudCredentialsInput>;

/** `PATCH`: only sent fields change (rotation of the token or the secret). */
export const cloudCredentialsPatch = cloudCredentialsInput.partial();
export type CloudCredentialsPatch = z.infer<typeof cloudCredentialsPatch>;

/** What the instance resource shows of them (nothing secret). */
export const cloudPublicSchema = z
  .object({ phoneNumberId: z.string(), wabaId: z.string(), apiBaseUrl: z.string() })
  .meta({ id: "CloudConnection", description: "Official-gateway instances: the operator number they run." });
export type CloudPublic = z.infer<typeof cloudPublicSchema>;

/** Credentials as a session pod uses them, opened from their sealed form. */
export interface CloudCredentials {
  phoneNumberId: string;
  wabaId: string;
  accessToken: string;
  appSecret: string;
  apiBaseUrl: string;
}

/**
 * The operator's Graph API at the version this release is written against: the one place it is
 * pinned. An instance's `apiBaseUrl` replaces it (a partner's compatible endpoint, the local mock).
 */
export const GRAPH_API_VERSION = "v25.0";
export const DEFAULT_GRAPH_BASE_URL = `https://graph.facebook.com/${GRAPH_API_VERSION}`;
