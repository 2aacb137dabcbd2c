// What the user's object gives a thread's run at step 0 (their context files, the thread's project,
// their MCP tools), under one version that moves with any change to them: a thread that holds the
// current version is answered with the version alone and copies nothing.
import type { OwnersAnswer } from "../lib/run-inputs";
import type { ContextFiles } from "./files";
import type { McpHub } from "./mcp";
import type { Projects } from "./projects";
import type { UserStore } from "./store";

const KEY = "inputs_version";

export class RunInputs {
  constructor(
    private readonly store: UserStore,
    private readonly from: { context: ContextFiles; projects: Projects; mcp: McpHub },
  ) {}

  get version(): string {
    return this.store.meta(KEY) ?? "0";
  }

  /** Something a run is given changed (a file, a project, a server or its tools). */
  changed(): void {
    this.store.setMeta(KEY, String(Number(this.version) + 1));
  }

  async forRun(projectId: string | null, known: string | null): Promise<OwnersAnswer> {
    // Servers whose tools are old are listed again meanwhile; a list that differs moves the version.
    this.from.mcp.refreshStale();
    const version = this.version;
    if (known === version) return { version };
    const project = projectId ? await this.from.projects.forRun(projectId) : null;
    return { version, inputs: { contextFiles: this.from.context.all(), project, mcp: this.from.mcp.forRun() } };
  }
}
