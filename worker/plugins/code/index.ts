// Code execution: the Messages API's server tool. Claude runs bash and edits files in a container on
// Anthropic's side; we host no sandbox. This plugin offers the tool, at the newest version the run's
// model takes (the catalog's word), where the deployment (CODE_EXECUTION) and the thread (its
// `codeExecution` setting) have it on; never to the offline model, which runs nothing. The container
// a run used is kept with the thread and named again by its next run (invoker/container.ts).
import { z } from "zod";
import type { PluginDefinition } from "../contract";

/** The tool's name in every version. */
export const CODE_EXECUTION_TOOL = "code_execution";

const settings = z.object({});
type Settings = z.infer<typeof settings>;

export const codePlugin: PluginDefinition<Settings> = {
  name: "code",
  version: "1.0.0",
  description: "Runs code (Anthropic's code execution tool): analysis, charts and files, in a container on Anthropic's side.",
  settings,
  builtinTools: [
    {
      description: "Runs bash and Python, and reads and writes files, in a container kept with the thread (run by Anthropic).",
      perRequest: true,
      definition: (_settings, request) => {
        // The plugins page lists it as the version every model that runs code takes.
        if (!request) return { type: "code_execution_20250825", name: CODE_EXECUTION_TOOL };
        if (!request.codeExecution || request.offline || request.thread.codeExecution === false) return null;
        const version = request.model.codeExecution;
        return version ? { type: version, name: CODE_EXECUTION_TOOL } : null;
      },
    },
  ],
  register: () => ({}),
};
