// Web search and web fetch: the Messages API's server tools. Anthropic runs them; this plugin only
// offers their definitions (bounded by its settings), and the stream carries their blocks to clients
// and into the transcript unchanged. A search is billed per request (worker/invoker/prices.ts).
import { z } from "zod";
import { WEB_FETCH_TOOL, WEB_SEARCH_TOOL } from "../../../protocol";
import type { PluginDefinition } from "../contract";

const domain = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(?!-)[a-z0-9.-]+\.[a-z]{2,}(\/\S*)?$/, "a domain such as example.com");

const settings = z
  .object({
    search: z.boolean().default(true),
    fetch: z.boolean().default(true),
    /** Per run (one API request may use each up to this many times). */
    maxUses: z.number().int().min(1).max(20).default(5),
    allowedDomains: z.array(domain).max(100).default([]),
    blockedDomains: z.array(domain).max(100).default([]),
  })
  .refine((s) => !(s.allowedDomains.length && s.blockedDomains.length), "Give allowed or blocked domains, not both");
type Settings = z.infer<typeof settings>;

/** The domain lists as the API takes them: absent when empty. */
const domains = (s: Settings) => ({
  ...(s.allowedDomains.length ? { allowed_domains: s.allowedDomains } : {}),
  ...(s.blockedDomains.length ? { blocked_domains: s.blockedDomains } : {}),
});

export const webPlugin: PluginDefinition<Settings> = {
  name: "web",
  version: "1.0.0",
  description: "Web search and web fetch (Anthropic's server tools), with sources and citations.",
  settings,
  builtinTools: [
    {
      description: "Searches the web (run by Anthropic; billed per search).",
      definition: (s) => (s.search ? { type: "web_search_20250305", name: WEB_SEARCH_TOOL, max_uses: s.maxUses, ...domains(s) } : null),
    },
    {
      description: "Reads a web page or PDF by its URL (run by Anthropic), with citations.",
      definition: (s) =>
        s.fetch ? { type: "web_fetch_20250910", name: WEB_FETCH_TOOL, max_uses: s.maxUses, citations: { enabled: true }, ...domains(s) } : null,
    },
  ],
  register: () => ({}),
};
