import { z } from "zod";
import { eventRaw, eventSeconds } from "./common.ts";

/**
 * The operator's events on official-gateway instances (spec 6.2; docs/official.md): the
 * operator's webhook fields with camelCase names, its values as given (null when absent),
 * `timestamp` in unix seconds and `raw` its value. Builder:
 * services/session/src/providers/cloud/inbound-fields.ts.
 */

const text = z.string().nullable();
const template = { templateId: text, name: text, language: text };

export const templateStatusPayloadSchema = z
  .strictObject({
    ...template,
    status: text.meta({ description: "APPROVED, REJECTED, PAUSED, DISABLED, …" }),
    reason: text,
    category: text,
    rejectionInfo: z.unknown().optional(),
    disableInfo: z.unknown().optional(),
    otherInfo: z.unknown().optional(),
    timestamp: eventSeconds,
    raw: eventRaw,
  })
  .meta({ id: "TemplateStatusPayload" });

export const templateQualityPayloadSchema = z
  .strictObject({ ...template, previousScore: text, newScore: text, timestamp: eventSeconds, raw: eventRaw })
  .meta({ id: "TemplateQualityPayload" });

export const templateCategoryPayloadSchema = z
  .strictObject({
    ...template,
    previousCategory: text,
    newCategory: text,
    correctCategory: text,
    impending: z.boolean().meta({ description: "Announced ahead (`categoryUpdateAt`), not done yet" }),
    categoryUpdateAt: eventSeconds.nullable(),
    timestamp: eventSeconds,
    raw: eventRaw,
  })
  .meta({ id: "TemplateCategoryPayload" });

export const phoneQualityPayloadSchema = z
  .strictObject({
    displayPhoneNumber: text,
    event: text,
    currentLimit: text,
    oldLimit: text,
    maxDailyConversationsPerBusiness: text,
    timestamp: eventSeconds,
    raw: eventRaw,
  })
  .meta({ id: "PhoneQualityPayload" });

export const phoneNamePayloadSchema = z
  .strictObject({
    displayPhoneNumber: text,
    decision: text,
    requestedVerifiedName: text,
    rejectionReason: text,
    timestamp: eventSeconds,
    raw: eventRaw,
  })
  .meta({ id: "PhoneNamePayload" });

/** The operator's `account_update` value with its top-level keys in camelCase: open, as the operator's. */
export const accountUpdatePayloadSchema = z
  .looseObject({ event: text, timestamp: eventSeconds, raw: eventRaw })
  .meta({ id: "AccountUpdatePayload", description: "The operator's other fields too, camelCase" });

export const accountAlertPayloadSchema = z
  .strictObject({
    entityType: text,
    entityId: text,
    alertSeverity: text,
    alertStatus: text,
    alertType: text.meta({ description: "`OPERATOR_ERROR`: an error the operator reported in a webhook" }),
    alertDescription: text,
    error: z
      .strictObject({
        code: z.number().int().nullable(),
        title: z.string(),
        message: z.string(),
        details: text,
        href: text,
      })
      .optional()
      .meta({ description: "`OPERATOR_ERROR`" }),
    field: z.string().optional().meta({ description: "`OPERATOR_ERROR`: the webhook field" }),
    timestamp: eventSeconds,
    raw: eventRaw,
  })
  .meta({ id: "AccountAlertPayload" });

export const contactMarketingPayloadSchema = z
  .strictObject({
    chatId: text,
    phone: z.string(),
    category: text,
    value: text.meta({ description: "stop, resume, signup" }),
    detail: text,
    timestamp: eventSeconds,
    raw: eventRaw,
  })
  .meta({ id: "ContactMarketingPayload" });
