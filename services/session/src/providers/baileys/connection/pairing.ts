import { ApiError, invalid } from "@gw/contracts";
import type { WASocket } from "@whiskeysockets/baileys";
import { isPaired } from "../account.ts";
import { toApiError } from "../errors.ts";
import type { BaileysLogger, RedisAuthState } from "./auth-state.ts";
import type { BaileysSessionOptions } from "./session-options.ts";

/**
 * Pairing by code (`requestPairingCode`): waits for the socket to be ready, refuses what Baileys
 * cannot do on a standard instance (SMS / voice delivery, passkeys), and limits the attempts.
 */

export const PASSKEY_MESSAGE =
  "Pareamento por passkey não é suportado em instâncias padrão. Use o QR code ou o código de pareamento.";
const PAIRING_METHOD_MESSAGE =
  "Envio do código por SMS ou ligação não é suportado em instâncias padrão. Omita o campo method: o código é exibido na resposta para ser digitado no WhatsApp (Aparelhos conectados > Conectar com número de telefone).";

/** What a pairing-code request needs from the connection. */
export interface PairingConnection {
  /** Whether the session is started (it wants a connection). */
  isActive(): boolean;
  /** The auth state in use; null when stopped. */
  currentAuth(): RedisAuthState | null;
  /** The current socket, open or still pairing; null when none. */
  currentSocket(): WASocket | null;
  /** Resolves once the current socket shows a QR (it is ready to ask for a code). */
  waitForQr(timeoutMs: number): Promise<void>;
}

/** Pairing codes (`requestPairingCode`), rate-limited per instance. */
export class PairingCodes {
  private attempts: number[] = [];

  constructor(
    private readonly log: BaileysLogger,
    private readonly opts: Pick<BaileysSessionOptions, "pairingCodeLimit" | "pairingReadyTimeoutMs">,
    private readonly connection: PairingConnection,
  ) {}

  async request(phone: string, method?: "sms" | "voice"): Promise<string> {
    if (method === "sms" || method === "voice") throw new ApiError("not_supported", PAIRING_METHOD_MESSAGE);
    const digits = phone.replace(/\D/g, "");
    if (!/^\d{8,15}$/.test(digits)) {
      throw invalid(
        "phoneNumber",
        "informe o número no formato internacional, só dígitos",
        "Informe o número no formato internacional, só dígitos.",
      );
    }
    const current = this.connection.currentAuth();
    if (current && isPaired(current.state.creds)) {
      throw new ApiError("bad_request", "Este número já está pareado. Faça logout para parear outro.");
    }
    if (!this.connection.isActive()) {
      throw new ApiError("instance_not_connected", "Inicie a instância e aguarde o QR code para pedir o código.");
    }
    const limit = this.opts.pairingCodeLimit ?? { max: 5, windowMs: 10 * 60_000 };
    const now = Date.now();
    this.attempts = this.attempts.filter((t) => now - t < limit.windowMs);
    if (this.attempts.length >= limit.max) {
      const retryAfter = Math.max(1, Math.ceil((this.attempts[0]! + limit.windowMs - now) / 1000));
      throw new ApiError("too_many_attempts", undefined, undefined, retryAfter);
    }
    // The request goes out on the socket: it must be up (official example: after the first QR).
    await this.connection.waitForQr(this.opts.pairingReadyTimeoutMs ?? 30_000);
    const sock = this.connection.currentSocket();
    const auth = this.connection.currentAuth();
    if (!sock || !auth || isPaired(auth.state.creds)) throw new ApiError("instance_not_connected");
    this.attempts.push(Date.now());
    try {
      return await sock.requestPairingCode(digits);
    } catch (err) {
      this.log.warn({ err }, "pairing code request failed");
      throw toApiError(err);
    }
  }
}
