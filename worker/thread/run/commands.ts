import type { Message } from "../../../protocol";
import type { Command } from "../../plugins/contract";

const COMMAND_LINE = /^\/([a-z][a-z0-9-]*)(?:[ \t]+(.*))?$/;
const FENCE = /^\s*(`{3,}|~{3,})/;

/**
 * The commands in a model's (or a user's) text: lines that are exactly `/name args`, outside fenced
 * code. `/usr/bin/x` is a path, not a command: the name must end at a space or the line's end.
 */
export function parseCommands(text: string): Command[] {
  const commands: Command[] = [];
  let fence: string | null = null;
  for (const line of text.split(/\r?\n/)) {
    const marker = line.match(FENCE)?.[1];
    if (marker) {
      // As in CommonMark: a fence closes with the same character, at least as many times.
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const m = line.trimEnd().match(COMMAND_LINE);
    if (m) commands.push({ name: m[1], args: (m[2] ?? "").trim(), raw: line.trimEnd() });
  }
  return commands;
}

/**
 * The commands of a run: those a person typed in their message, then the model's. A command the
 * model repeats from the person's message, however often and in whatever words, is taken once.
 */
export function commandsOf(message: Message, output: string): Command[] {
  const typed = message.role === "user" && message.source === "web" ? parseCommands(message.content) : [];
  const typedNames = new Set(typed.map((c) => c.name));
  const seen = new Set<string>();
  const own = parseCommands(output).filter((c) => !typedNames.has(c.name) && !seen.has(c.raw) && seen.add(c.raw));
  return [...typed, ...own];
}
