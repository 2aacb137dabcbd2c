// What a run's code costs, and where it stops. The API bills a container by the time it runs (at
// least five minutes), which no usage field reports: a request counts from its start to its end when
// its code ran, or when it put files in the container (they are loaded whether or not code runs).
// And a run may run code at most `limit` times: the response that would run once more is cut where
// that run begins, and the model answers with what it has, its tools off.
import { isCodeTool } from "../../protocol";
import type { ApiContent, ApiMessage, Usage } from "./types";

/** The least container time the API bills. */
export const CONTAINER_MIN_SECONDS = 300;

export class CodeMeter {
  private runs = 0;
  private ms = 0;

  constructor(readonly limit: number) {}

  /** A code run begins in the response: false when it is one past the run's limit (the response ends there). */
  take(): boolean {
    if (this.runs >= this.limit) return false;
    this.runs++;
    return true;
  }

  /** A request ended: its time counts when it ran code or loaded files into the container. */
  request(sent: ApiMessage[], got: ApiContent[], ms: number): void {
    if (got.some(ranCode) || sent.some((m) => typeof m.content !== "string" && m.content.some((b) => b.type === "container_upload"))) this.ms += ms;
  }

  /** The run's usage with its code's: the runs (serverToolUses.code_execution) and the container time billed. */
  billed(usage: Usage): Usage {
    if (this.ms === 0 && this.runs === 0) return usage;
    const seconds = Math.max(CONTAINER_MIN_SECONDS, Math.ceil(this.ms / 1000));
    const uses = this.runs ? { serverToolUses: { ...usage.serverToolUses, code_execution: this.runs } } : {};
    return { ...usage, ...uses, containerSeconds: seconds };
  }

  /** What the model is told when its run reached the limit. */
  get limitNote(): string {
    return `[This answer has run code ${this.limit} times, the most one answer may: answer with what you have, without running more code.]`;
  }
}

const ranCode = (b: ApiContent) => b.type === "server_tool_use" && isCodeTool(b.name);
