// Type declarations for control.mjs.
import type { RecordedRequest, Step } from "./server.mjs";

/** POST /_control/config: with `match`, only the requests that hold it see the config. */
export interface FakeConfig {
  contextLimitChars?: number;
  compactionTriggerChars?: number;
  refuseCompaction?: boolean;
  match?: string;
}

export interface FakeControl {
  script(match: string, responses: Step[]): Promise<void>;
  requests(match: string): Promise<RecordedRequest[]>;
  config(config: FakeConfig): Promise<void>;
  reset(): Promise<void>;
}

export function fakeControl(baseUrl: string): FakeControl;

/** The text of a Messages API request's `system` (a string or an array of text blocks). */
export function systemText(body: unknown): string;
