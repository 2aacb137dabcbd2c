import type { DelegateRequest } from "./tasks";

const OPTION = /^(model|maxIterations)=(\S+)$/;

/**
 * `/delegate <prompt> [model=<m>] [maxIterations=<n>]`: options are read off the end of the line,
 * a word at a time, so the work is linear in the line's length whatever its spacing (a regex over
 * the whole line that anchors at its end backtracks through every run of spaces).
 */
export function parseDelegateArgs(args: string): DelegateRequest {
  const req: DelegateRequest = { prompt: "" };
  let rest = args.trim();
  while (rest) {
    const cut = lastSpace(rest);
    const option = OPTION.exec(rest.slice(cut + 1));
    if (!option) break;
    // Walking from the end, an option given twice takes its first value.
    if (option[1] === "model") req.model = option[2];
    else if (/^\d+$/.test(option[2])) req.maxIterations = Number(option[2]);
    rest = rest.slice(0, Math.max(cut, 0)).trimEnd();
  }
  req.prompt = rest;
  return req;
}

/** The index of the last white space in `s`, or -1. */
function lastSpace(s: string): number {
  for (let i = s.length - 1; i >= 0; i--) if (/\s/.test(s[i])) return i;
  return -1;
}
