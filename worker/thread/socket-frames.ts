import type { ClientFrame, SocketFrameMap } from "../../protocol";

/** A frame for one socket only: no seq, and it uses none up (PROTOCOL.md). */
export function frameFor<K extends keyof SocketFrameMap>(event: K, data: SocketFrameMap[K]): string {
  return JSON.stringify({ event, data, timestamp: Date.now() });
}

const MAX_CLIENT_FRAME = 4096;

export type ParsedClientFrame = ClientFrame | { type: "invalid"; error: string };

export function parseClientFrame(raw: string | ArrayBuffer): ParsedClientFrame {
  if (typeof raw !== "string") return { type: "invalid", error: "Send JSON text frames" };
  if (raw.length > MAX_CLIENT_FRAME) return { type: "invalid", error: "Frame too large" };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { type: "invalid", error: "Malformed JSON" };
  }
  const type = (value as { type?: unknown } | null)?.type;
  if (type === "ping" || type === "stop") return { type };
  return { type: "invalid", error: `Unknown frame type; expected "ping" or "stop"` };
}
