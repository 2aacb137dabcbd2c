// A run's own record of what happened, which the pipeline returns (the seed's return value): the
// steps, the stream (deltas coalesced for sockets, merged into whole blocks for plugins), and the
// plugins' stream and step hooks still running.
import {
  applyCodeEvent,
  applyCodeOutput,
  applyWebEvent,
  documentCitation,
  NO_WEB,
  storedCodeRuns,
  type CodeOutput,
  type CodeRun,
  type CodeRunView,
  type DocumentCitation,
  type PipelineStep,
  type StreamEvent,
  type WebActivity,
} from "../../../protocol";
import type { RunInfo, RunOutcome, StepInfo } from "../../plugins/contract";
import { DeltaCoalescer } from "../broadcaster";
import type { RunParts } from "./parts";

export class RunRecorder {
  readonly steps: PipelineStep[] = [];
  readonly streamEvents: StreamEvent[] = [];
  private readonly coalescer: DeltaCoalescer;
  /** Stream and step hooks still running (an async one puts off the plugins after it in line). */
  private readonly hooks: Promise<void>[] = [];
  /** The run's code runs (their input whole, their output): what the answer's metadata.codeRuns keeps. */
  private codeRuns: CodeRunView[] = [];

  constructor(
    private readonly parts: Pick<RunParts, "events" | "plugins" | "store" | "config">,
    readonly run: RunInfo,
  ) {
    const { threadId, runId } = run;
    this.coalescer = new DeltaCoalescer(parts.config.streamFlushMs, (e) => parts.events.emit("pipeline:stream", { threadId, runId, ...e }));
  }

  /** A pipeline step: the event, then the plugins that follow steps (activity). */
  step(info: StepInfo): void {
    this.coalescer.flush();
    this.steps.push(info.step);
    this.parts.events.emit("pipeline:step", { threadId: this.run.threadId, runId: this.run.runId, ...info });
    this.track(this.parts.plugins.notify("onPipelineStep", info, this.run));
  }

  stream(e: StreamEvent): void {
    // A tool's input as it streams is for the sockets alone (the web app shows an artifact growing).
    // Plugins do not hear it and the run's record does not keep it: its tool_call follows with the
    // input whole, so the pieces tell them nothing they do not get then, and an artifact's content
    // (up to 1 MiB) in pieces of a few characters would be thousands of calls to every plugin.
    if (e.type === "tool_input") return this.coalescer.push(e);
    this.codeRuns = applyCodeEvent(this.codeRuns, e);
    this.track(this.parts.plugins.notify("onStreamEvent", e, this.run));
    const last = this.streamEvents.at(-1);
    if ((e.type === "text" || e.type === "thinking") && last?.type === e.type) last.delta += e.delta;
    else this.streamEvents.push({ ...e });
    if (e.type === "text" || e.type === "thinking") this.coalescer.push(e);
    else {
      this.coalescer.flush();
      if (e.type === "tool_call") this.parts.store.runs.toolRan(this.run.runId);
      this.parts.events.emit("pipeline:stream", { threadId: this.run.threadId, runId: this.run.runId, ...e });
    }
  }

  /**
   * A code run's output, with the files the thread kept of it: to its clients (code:output), to the
   * answer's record, and to the plugins as the tool_result of its call, so activity and metrics see a
   * code run as any tool's.
   */
  codeOutput(out: CodeOutput): void {
    this.coalescer.flush();
    this.codeRuns = applyCodeOutput(this.codeRuns, out);
    this.parts.events.emit("code:output", { threadId: this.run.threadId, runId: this.run.runId, ...out });
    const toolName = this.codeRuns.find((r) => r.toolUseId === out.toolUseId)?.toolName ?? "code_execution";
    const result: StreamEvent = { type: "tool_result", toolUseId: out.toolUseId, toolName, content: codeResultText(out), isError: Boolean(out.error) || (out.returnCode ?? 0) !== 0 };
    this.streamEvents.push(result);
    this.track(this.parts.plugins.notify("onStreamEvent", result, this.run));
  }

  /** The upstream said its last: the buffered delta goes out now, not at the coalescer's next tick. */
  flush(): void {
    this.coalescer.flush();
  }

  /**
   * The buffered delta is out, and every plugin has heard every stream event and step so far:
   * onAfterInvoke and onPipelineComplete may follow (the activity plugin saves its rows in the
   * latter). Notify never rejects.
   */
  async drained(): Promise<void> {
    this.coalescer.flush();
    await Promise.all(this.hooks);
  }

  /**
   * The run's web searches and fetches (with what each found) and its answer's citations, folded as
   * its clients folded them live: kept in the answer's metadata, so the search cards and numbered
   * references of a reloaded thread are those they saw.
   */
  web(): { web?: WebActivity } {
    const web = this.streamEvents.reduce(applyWebEvent, NO_WEB);
    if (!web.calls.length && !web.citations.length) return {};
    return { web: { calls: web.calls.map(({ done: _, ...call }) => call), citations: web.citations } };
  }

  /** The project passages the answer cites, each once (metadata.citations: PROTOCOL.md, "Knowledge"). */
  documents(): { citations?: DocumentCitation[] } {
    const seen = new Set<string>();
    const cited = this.streamEvents.flatMap((e) => (e.type === "citations" ? e.citations : [])).flatMap((c) => documentCitation(c) ?? []);
    const once = cited.filter((c) => {
      const key = `${c.fileId}|${JSON.stringify(c.location)}|${c.citedText}`;
      return seen.has(key) ? false : (seen.add(key), true);
    });
    return once.length ? { citations: once } : {};
  }

  /** The run's code runs, kept in the answer's metadata so a reloaded thread shows their cards. */
  code(): { codeRuns?: CodeRun[] } {
    return this.codeRuns.length ? { codeRuns: storedCodeRuns(this.codeRuns) } : {};
  }

  outcome(fields: Omit<RunOutcome, "steps" | "streamEvents">): RunOutcome {
    return { ...fields, steps: this.steps, streamEvents: this.streamEvents };
  }

  private track(hooked: void | Promise<void>): void {
    if (hooked) this.hooks.push(hooked);
  }
}

/** A code run's outcome in words, as its tool_result row keeps it. */
function codeResultText(out: CodeOutput): string {
  const parts = [out.error ? `error: ${out.error}` : `exit ${out.returnCode ?? 0}`];
  if (out.stdout) parts.push(out.stdout);
  if (out.stderr) parts.push(`stderr:\n${out.stderr}`);
  if (out.files.length) parts.push(`files: ${out.files.map((f) => f.name).join(", ")}`);
  return parts.join("\n");
}
