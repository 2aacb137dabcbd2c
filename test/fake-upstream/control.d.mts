// Type declarations for control.mjs.
import type { ContainerStats, FileStats, RecordedRequest, Step } from "./server.mjs";

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
  /** GET /_control/files: every file (uploads and what scripted code made), upload and download counts. */
  files(): Promise<FileStats>;
  /** POST /_control/files/limit: the largest upload in bytes (413 past it); no argument restores 500 MB. */
  fileLimit(maxBytes?: number): Promise<void>;
  /** POST /_control/files/fail: the Files API answers `status` for file `id` (metadata, content) or uploads named `filename`, until reset. */
  failFiles(failure: { id?: string; filename?: string; status: number; type?: string; message?: string }): Promise<void>;
  /** GET /_control/containers. */
  containers(): Promise<ContainerStats[]>;
  /**
   * POST /_control/containers/expire: later requests naming the container get `error`; by default 400
   * invalid_request_error "container: Container <id> has expired and can't be reused. …".
   */
  expireContainer(id: string, error?: { status?: number; type?: string; message?: string }): Promise<void>;
}

export function fakeControl(baseUrl: string): FakeControl;

/** The text of a Messages API request's `system` (a string or an array of text blocks). */
export function systemText(body: unknown): string;
