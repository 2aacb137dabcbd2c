import type { Command } from "../plugins/contract";

const COMMAND_LINE = /^\/([a-z][a-z0-9-]*)(?:[ \t]+(.*))?$/;
const FENCE = /^\s*(```|~~~)/;

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
      if (fence === null) fence = marker;
      else if (marker === fence) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const m = line.trimEnd().match(COMMAND_LINE);
    if (m) commands.push({ name: m[1], args: (m[2] ?? "").trim(), raw: line.trimEnd() });
  }
  return commands;
}
