import { ApiError, type CloudCredentials } from "@gw/contracts";
import type { ProviderContext } from "../contract.ts";
import { apiErrorOfGraph, isAuthFailure } from "./errors.ts";
import { type GraphTarget, graph } from "./graph.ts";

/**
 * One official instance's link to the operator: its credentials while it is WORKING, and the one
 * way its calls are made. A call the operator answers with an authentication error (190: the
 * token expired or was revoked) makes the instance FAILED at once (spec: WORKING only while the
 * operator accepts the credentials); every error becomes the spec's, the operator's code kept.
 */
export class CloudLink {
  readonly graph = graph;
  private creds: CloudCredentials | null = null;
  private failed: string | null = null;

  constructor(
    private readonly ctx: ProviderContext,
    private readonly timeoutMs: number,
  ) {}

  get instanceId(): string {
    return this.ctx.instance.id;
  }

  /** Credentials the operator just accepted: calls may go. */
  open(creds: CloudCredentials): void {
    this.creds = creds;
    this.failed = null;
  }

  close(): void {
    this.creds = null;
  }

  isOpen(): boolean {
    return this.creds !== null;
  }

  targetOf(creds: CloudCredentials): GraphTarget {
    return { apiBaseUrl: creds.apiBaseUrl, accessToken: creds.accessToken, timeoutMs: this.timeoutMs };
  }

  /** The credentials and target of a WORKING instance, else `instance_not_connected`. */
  async ready(): Promise<{ creds: CloudCredentials; target: GraphTarget }> {
    const creds = this.creds;
    if (!creds) {
      throw new ApiError(
        "instance_not_connected",
        this.failed
          ? `As credenciais do operador foram recusadas (${this.failed}); atualize-as e reinicie a instância.`
          : "A instância não está conectada ao operador.",
      );
    }
    return { creds, target: this.targetOf(creds) };
  }

  /** An operator call: its errors as the spec's; an authentication error fails the instance. */
  async call<T>(op: string, fn: () => Promise<T>, fieldHint?: string): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (isAuthFailure(err) && this.creds) {
        this.creds = null;
        this.failed = `${err.code === null ? `HTTP ${err.status}` : `código ${err.code}`}: ${err.message}`;
        this.ctx.log.warn(
          { op, code: err.code, status: err.status },
          "operator refused the credentials: instance FAILED",
        );
        this.ctx.emit({ type: "status", status: "FAILED", cause: { reason: "operator_auth", detail: err.message } });
        throw new ApiError(
          "instance_not_connected",
          "O operador recusou as credenciais (token inválido ou expirado); a instância está FAILED.",
          err.code === null
            ? { operatorStatus: String(err.status), operatorMessage: err.message }
            : { operatorCode: String(err.code), operatorMessage: err.message },
        );
      }
      throw apiErrorOfGraph(err, fieldHint);
    }
  }
}
