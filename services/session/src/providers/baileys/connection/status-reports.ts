import type { ConnectionStatus, StatusCause } from "@gw/contracts";
import type { WASocket } from "@whiskeysockets/baileys";
import type { ProviderContext } from "../../contract.ts";
import { accountFromMe } from "../account.ts";

/**
 * What the connection (connection.ts) tells the manager about itself, without repeating itself:
 * its status (once per change, or again with a cause) and the connected account (once per change
 * of number, LID or push name).
 */
export class StatusReports {
  private status: ConnectionStatus | null = null;
  private lastAccountKey = "";

  constructor(private readonly ctx: ProviderContext) {}

  /** A new status, or the same with a cause (a reconnect's new reason or time: kept on the instance). */
  setStatus(status: ConnectionStatus, cause?: StatusCause): void {
    if (this.status === status && !cause) return;
    this.status = status;
    this.ctx.emit(cause ? { type: "status", status, cause } : { type: "status", status });
  }

  /** Stopped or logged out: the next status is reported whatever it is. */
  forgetStatus(): void {
    this.status = null;
  }

  /**
   * The account on `sock`, when it changed and has a number. Not `sock.user`: Baileys builds the
   * socket by spreading each layer, which evaluates that getter once at creation;
   * `authState.creds` is the live object creds.update merges into.
   */
  emitAccount(sock: WASocket): void {
    const account = accountFromMe(sock.authState.creds.me);
    const key = `${account.phone}|${account.lid}|${account.pushName}`;
    if (key === this.lastAccountKey || !account.phone) return;
    this.lastAccountKey = key;
    this.ctx.emit({ type: "account", account });
  }
}
