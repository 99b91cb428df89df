import type { Config, Logger, Platform } from "@gw/platform";
import nodemailer, { type Transporter } from "nodemailer";

/** Tells the account owner by e-mail when one of their webhooks is deactivated (spec 3.4). */
export class Notifier {
  private readonly transport: Transporter | null;

  constructor(
    private readonly platform: Platform,
    private readonly config: Config,
    private readonly log: Logger,
  ) {
    this.transport = config.SMTP_URL ? nodemailer.createTransport(config.SMTP_URL) : null;
  }

  async webhookDeactivated(instanceId: string, webhookId: string, url: string, reason: string): Promise<void> {
    if (!this.transport) return; // no SMTP configured: the operator record is all there is
    const instance = await this.platform.instances.get(instanceId);
    const account = instance ? await this.platform.accounts.get(instance.accountId).catch(() => null) : null;
    if (!account?.email) {
      this.log.info({ instanceId, webhookId }, "webhook deactivated; the account has no e-mail to notify");
      return;
    }
    await this.transport.sendMail({
      from: this.config.SMTP_FROM,
      to: account.email,
      subject: `Webhook desativado: ${url}`,
      text: [
        `O webhook ${webhookId} da instância ${instance?.name ?? ""} (${instanceId}) foi desativado.`,
        `Endereço: ${url}`,
        `Motivo: ${reason}`,
        "",
        'Corrija o endereço e reative-o com PATCH /v1/instances/{instanceId}/webhooks/{webhookId} {"active": true}.',
      ].join("\n"),
    });
  }

  close(): void {
    this.transport?.close();
  }
}
