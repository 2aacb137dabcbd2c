import type { ContextFile } from "../../protocol";
import type { McpOffer } from "./mcp-offer";
import type { RunProject } from "./run-project";

/** What a thread's run is given by its owner's object at step 0: their context files, the thread's project, their MCP tools. */
export interface OwnersInputs {
  contextFiles: ContextFile[];
  /** The thread's project, when it is in one. */
  project: RunProject | null;
  /** The owner's MCP servers' tools (any thread of theirs may turn a server off). */
  mcp: McpOffer[];
}

/** The owner's answer: the version of their inputs, and the inputs unless the thread holds that version. */
export interface OwnersAnswer {
  version: string;
  inputs?: OwnersInputs;
}
