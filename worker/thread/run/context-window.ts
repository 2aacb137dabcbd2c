// What of a long thread the model sees: everything after the branch's last compaction block (that
// block first), then as many whole exchanges, newest first, as fit the model's window. The token
// estimate is calibrated per thread against the API's own count, and a "prompt is too long" answer
// teaches the thread the real limit, so the next try (and every later run) fits.
import type Anthropic from "@anthropic-ai/sdk";
import type { ModelInfo } from "../../../protocol";
import { refTokens, refOf } from "../../invoker/attachment-refs";
import { estimateTokens, windowByBudget, type StoredTurn } from "../../invoker/conversation";
import { isCompaction, type ApiContent, type ApiMessage, type ModelTool } from "../../invoker/types";
import type { CacheStore } from "../store/cache";

/** The share of a too-long prompt's stated maximum a retry aims for. */
const MARGIN = 0.95;
const LEFT_OUT = "[Earlier messages of this conversation were left out to fit the model's context window.]";

/** The turns from the last compaction block on (its turn starting with the block), or all of them. */
export function sinceCompaction(turns: StoredTurn[]): StoredTurn[] {
  for (let i = turns.length - 1; i >= 0; i--) {
    const content = turns[i].message.content;
    if (typeof content === "string") continue;
    const at = content.findLastIndex((b) => isCompaction(b) && b.content);
    if (at >= 0) return [{ ...turns[i], message: { ...turns[i].message, content: content.slice(at) } }, ...turns.slice(i + 1)];
  }
  return turns;
}

/** "prompt is too long: 25125 tokens > 25000 maximum" → its numbers. */
export function parseTooLong(message: string): { tokens: number; max: number } | null {
  const m = message.match(/prompt is too long:\s*(\d+)\s*tokens\s*>\s*(\d+)\s*maximum/i);
  return m ? { tokens: Number(m[1]), max: Number(m[2]) } : null;
}

/** Estimated tokens of what every request of a run carries besides the history. */
export function fixedTokens(system: string, prompt: string, attachments: ApiContent[], tools: ModelTool[]): number {
  // A reference costs its file's tokens; any other block (a retrieved passage) its text's.
  const files = attachments.reduce((n, b) => n + (refOf(b) ? refTokens(refOf(b)!) : Math.ceil(JSON.stringify(b).length / 4)), 0);
  return Math.ceil((system.length + prompt.length + JSON.stringify(tools).length) / 4) + files + 16;
}

/** The newest whole exchanges within `room` estimated tokens; a line tells the model of the rest. */
export function fitHistory(turns: StoredTurn[], room: number): { history: ApiMessage[]; dropped: number; estimate: number } {
  const { messages, dropped } = windowByBudget(turns, Math.max(0, room));
  const estimate = messages.reduce((n, m) => n + estimateTokens(m), 0);
  if (dropped === 0 || messages[0]?.role !== "user") return { history: messages, dropped, estimate };
  const first = messages[0];
  const content: ApiContent[] = [{ type: "text", text: LEFT_OUT }, ...(typeof first.content === "string" ? [{ type: "text" as const, text: first.content }] : first.content)];
  return { history: [{ ...first, content }, ...messages.slice(1)], dropped, estimate: estimate + 24 };
}

interface Learned {
  /** The API's tokens per estimated token for this thread. */
  ratio: number;
  /** The largest prompt the API accepted, by model, as its "too long" answers stated. */
  maxInput: Record<string, number>;
}

/** Per thread, in the object's storage: what the API has taught about counting and limits. */
export class Calibration {
  private learned: Learned;

  constructor(private readonly cache: CacheStore) {
    this.learned = cache.get<Learned>("calibration")?.value ?? { ratio: 1, maxInput: {} };
  }

  get ratio(): number {
    return this.learned.ratio;
  }

  /** The prompt tokens a run on `model` may use: the window less the answer's room, or what the API said. */
  budget(model: ModelInfo, maxTokens: number, override: number | null): number {
    const window = override ?? model.contextWindow - maxTokens;
    const stated = this.learned.maxInput[model.id];
    return stated ? Math.min(window, Math.floor(stated * MARGIN)) : window;
  }

  /** The API counted `actual` tokens for what was estimated at `estimated`. */
  observe(actual: number, estimated: number): void {
    if (actual <= 0 || estimated <= 0) return;
    // Weighted towards the newest count, so a thread's mix (code, languages) is followed as it changes.
    this.learned.ratio = this.learned.ratio * 0.3 + (actual / estimated) * 0.7;
    this.save();
  }

  /** The API refused `estimated` as `limit.tokens` over its maximum: both are taken as they are. */
  tooLong(model: string, limit: { tokens: number; max: number }, estimated: number): void {
    this.learned.maxInput[model] = limit.max;
    if (estimated > 0) this.learned.ratio = Math.max(this.learned.ratio, limit.tokens / estimated);
    this.save();
  }

  private save(): void {
    this.cache.put("calibration", this.learned, Date.now());
  }
}

export type Thinking = Anthropic.ThinkingConfigParam | null;
