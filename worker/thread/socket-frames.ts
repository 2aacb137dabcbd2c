import { MAX_BODY_BYTES, type ClientFrame, type SocketFrameMap } from "../../protocol";
import { sendFrame } from "./post-input";

/** A frame for one socket only: no seq, and it uses none up (PROTOCOL.md). */
export function frameFor<K extends keyof SocketFrameMap>(event: K, data: SocketFrameMap[K]): string {
  return JSON.stringify({ event, data, timestamp: Date.now() });
}

/** A send frame carries what a POST body does, so it is bounded as one. */
const MAX_CLIENT_FRAME = MAX_BODY_BYTES;

/** What a client sent: a frame to act on, or why it cannot be (`clientMessageId` when a send named one). */
export type ParsedClientFrame =
  | ClientFrame
  | { type: "invalid"; code: "invalid_frame" | "invalid_request" | "too_large"; error: string; clientMessageId?: string };

export function parseClientFrame(raw: string | ArrayBuffer): ParsedClientFrame {
  if (typeof raw !== "string") return { type: "invalid", code: "invalid_frame", error: "Send JSON text frames" };
  if (raw.length > MAX_CLIENT_FRAME) return { type: "invalid", code: "too_large", error: `Frames are limited to ${MAX_CLIENT_FRAME} characters` };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { type: "invalid", code: "invalid_frame", error: "Malformed JSON" };
  }
  const type = (value as { type?: unknown } | null)?.type;
  if (type === "ping" || type === "stop") return { type };
  if (type !== "send") return { type: "invalid", code: "invalid_frame", error: `Unknown frame type; expected "ping", "stop" or "send"` };
  const parsed = sendFrame.safeParse(value);
  if (parsed.success) return parsed.data;
  const named = (value as { clientMessageId?: unknown }).clientMessageId;
  const where = parsed.error.issues.map((i) => `${i.path.join(".") || "frame"}: ${i.message}`).join("; ");
  return { type: "invalid", code: "invalid_request", error: `Invalid send frame (${where})`, ...(typeof named === "string" ? { clientMessageId: named } : {}) };
}
