// What a person's message must be, wherever it comes from: POST messages (and /api/chat, edits) or
// the `send` frame on the thread's socket. Declared once, so the two paths cannot drift.
import { z } from "zod";
import { MAX_CLIENT_MESSAGE_ID, MAX_CONTENT_CHARS, type SendFrame } from "../../protocol";

export const content = z
  .string()
  .max(MAX_CONTENT_CHARS)
  .refine((s) => s.trim().length > 0, "must not be empty");
export const clientMessageId = z.string().min(1).max(MAX_CLIENT_MESSAGE_ID);
// Their number is checked after parsing: more than the limit is 413, like a file over its size.
export const attachments = z.array(z.string().min(1).max(100)).optional();

export const postBody = z.strictObject({ content, clientMessageId: clientMessageId.optional(), attachments });

/** A `send` frame: a post whose clientMessageId is required (its answer names it). */
export const sendFrame = z.strictObject({ type: z.literal("send"), content, clientMessageId, attachments }) satisfies z.ZodType<SendFrame>;

/** A message's fields as a person sent them. */
export type PostInput = z.infer<typeof postBody>;
