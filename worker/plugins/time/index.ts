import { z } from "zod";
import { isTimeZone } from "../../../protocol";
import type { PluginDefinition } from "../contract";

const settings = z.object({
  timeZone: z.string().refine(isTimeZone, "not an IANA time zone").default("UTC"),
});
type Settings = z.infer<typeof settings>;

export function formatNow(timeZone: string, now = new Date()): string {
  const local = new Intl.DateTimeFormat("en-US", {
    timeZone, dateStyle: "full", timeStyle: "long",
  }).format(now);
  return `${local} (${now.toISOString()})`;
}

const MARKER = /\/current-time\b/g;

/** `/current-time` in a prompt becomes the time in the configured zone; also a tool. */
export const timePlugin: PluginDefinition<Settings> = {
  name: "time",
  version: "1.0.0",
  description: "Replaces /current-time in prompts and offers a current-time tool.",
  settings,
  tools: [
    {
      name: "current_time",
      description: "The current date and time, in the user's configured time zone and in UTC (ISO 8601).",
      inputSchema: { type: "object", properties: {} },
      handler: (_input, _call, ctx) => formatNow((ctx.settings as Settings).timeZone),
    },
  ],
  register(ctx) {
    return {
      onBeforeInvoke(prompt) {
        if (!prompt.prompt.includes("/current-time")) return prompt;
        return { ...prompt, prompt: prompt.prompt.replace(MARKER, formatNow(ctx.settings.timeZone)) };
      },
    };
  },
};
