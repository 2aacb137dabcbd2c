import type { DelegateRequest } from "./tasks";

const OPTION = /\s+(model|maxIterations)=(\S+)$/;

/** `/delegate <prompt> [model=<m>] [maxIterations=<n>]`: options are read off the end of the line. */
export function parseDelegateArgs(args: string): DelegateRequest {
  let prompt = ` ${args.trim()}`;
  const req: DelegateRequest = { prompt: "" };
  for (let m = prompt.match(OPTION); m; m = prompt.match(OPTION)) {
    if (m[1] === "model") req.model = m[2];
    else if (/^\d+$/.test(m[2])) req.maxIterations = Number(m[2]);
    prompt = prompt.slice(0, m.index);
  }
  req.prompt = prompt.trim();
  return req;
}
