/**
 * A user's MCP server as their threads' runs are given it (the owner's object reads it, the thread
 * caches it with step 0): its tools under the names the model calls them by, and which ones ask first.
 * No URL, header or token: calls go back through the owner's object.
 */
export interface McpOffer {
  serverId: string;
  server: string;
  tools: McpOfferTool[];
}

export interface McpOfferTool {
  /** `<server>__<tool>`, the name the model sees. */
  name: string;
  /** The server's own name for it (what a call sends). */
  tool: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** A call waits for the user's approval first. */
  asks: boolean;
}

/** What a call to an MCP tool answered: its text, its images, and whether it is an error result. */
export interface McpResult {
  content: string;
  images: { mediaType: string; data: string }[];
  isError: boolean;
}

/**
 * The owner's object's answer to a call: its result, or that the tool asks first now and was not
 * called. The approval setting is read when the call is made, so one switched to "always" while a
 * run goes on asks before its next call, whatever the run's copy of the offer says.
 */
export type McpCallAnswer = McpResult | { asksFirst: true };
