// The state of one open thread and the pure reducer that applies HTTP answers and WebSocket events
// to it. Sequence filtering (seq <= last seen) happens before this, in ThreadSync; the reducer still
// drops chat:messages whose id it already holds.

import { MESSAGE_PAGE, type Message, type ServerFrame } from "@protocol";
import { applyCodeResult, applyStream, artifactWritten, containerNotice, newRun, type LiveRun } from "./liveRun";

export interface ChatState {
  load: "idle" | "loading" | "ready" | "error";
  loadError?: string;
  messages: Message[];
  ids: ReadonlySet<string>;
  runs: Readonly<Record<string, LiveRun>>;
  runOrder: readonly string[];
  /** The run in progress, as the server says (ready frame, pipeline events). */
  running: string | null;
  hasOlder: boolean;
  loadingOlder: boolean;
}

export type ChatAction =
  | { type: "loading" }
  | { type: "loaded"; messages: Message[]; hasOlder: boolean }
  | { type: "loadFailed"; error: string }
  | { type: "reloaded"; messages: Message[] }
  | { type: "olderLoading" }
  | { type: "olderLoaded"; messages: Message[]; hasOlder: boolean }
  | { type: "message"; message: Message }
  | { type: "frame"; frame: ServerFrame }
  | { type: "resetRun"; runId: string }
  /** A branch change seen by this tab (a switch, or GET after one): its messages replace those shown. */
  | { type: "branch"; messages: Message[] }
  /** An edit or regeneration of `messageId` was sent: it and what followed leave the branch shown. */
  | { type: "cutAt"; messageId: string };

export const initialChatState = (threadId: string | null): ChatState => ({
  load: threadId ? "loading" : "idle",
  messages: [],
  ids: new Set(),
  runs: {},
  runOrder: [],
  running: null,
  hasOlder: false,
  loadingOlder: false,
});

/** Returns state with `runId` present (created when unknown, e.g. joined mid-run), then updated. */
function withRun(state: ChatState, runId: string, at: number, update: (run: LiveRun) => LiveRun): ChatState {
  const existing = state.runs[runId];
  const run = update(existing ?? newRun(runId, null, at));
  return {
    ...state,
    runs: { ...state.runs, [runId]: run },
    runOrder: existing ? state.runOrder : [...state.runOrder, runId],
  };
}

function addMessages(state: ChatState, incoming: Message[], where: "append" | "prepend"): ChatState {
  const fresh = incoming.filter((m) => !state.ids.has(m.id));
  if (fresh.length === 0) return state;
  const ids = new Set(state.ids);
  for (const m of fresh) ids.add(m.id);
  const messages = where === "append" ? [...state.messages, ...fresh] : [...fresh, ...state.messages];
  return { ...state, messages, ids };
}

/** Runs that answer none of `ids` go (one in progress stays). */
function keepRunsOf(state: ChatState, ids: ReadonlySet<string>): Pick<ChatState, "runs" | "runOrder"> {
  const keep = (run: LiveRun) => run.runId === state.running || (run.messageId !== null && ids.has(run.messageId));
  const runOrder = state.runOrder.filter((id) => keep(state.runs[id]));
  return { runs: Object.fromEntries(runOrder.map((id) => [id, state.runs[id]])), runOrder };
}

/**
 * After a branch change the thread's current branch (its newest page) replaces what is shown; runs
 * that answered messages no longer on it go too.
 */
function showBranch(state: ChatState, messages: Message[]): ChatState {
  const ids = new Set(messages.map((m) => m.id));
  return { ...state, load: "ready", messages, ids, ...keepRunsOf(state, ids), hasOlder: messages.length >= MESSAGE_PAGE };
}

/** The new version of `messageId` will take its place: it and everything after it go. */
function cutAt(state: ChatState, messageId: string): ChatState {
  const at = state.messages.findIndex((m) => m.id === messageId);
  if (at < 0) return state;
  const messages = state.messages.slice(0, at);
  const ids = new Set(messages.map((m) => m.id));
  return { ...state, messages, ids, ...keepRunsOf(state, ids) };
}

function applyFrame(state: ChatState, frame: ServerFrame): ChatState {
  const at = frame.timestamp ?? Date.now();
  switch (frame.event) {
    case "ready": {
      const running = frame.data.running;
      if (!running) return { ...state, running: null };
      // Show the run in progress at once (stop button, streaming bubble) even before its events arrive.
      return { ...withRun(state, running, at, (r) => r), running };
    }
    case "chat:message":
      return addMessages(state, [frame.data.message], "append");
    case "thread:notification":
      return addMessages(state, [frame.data.message], "append");
    case "thread:updated":
      return frame.data.messages ? showBranch(state, frame.data.messages) : state;
    case "pipeline:start": {
      const { runId, messageId } = frame.data;
      const next = withRun(state, runId, at, (r) => ({ ...r, messageId, status: "running", startedAt: at }));
      return { ...next, running: runId };
    }
    case "pipeline:step": {
      const { runId, step, detail, usage } = frame.data;
      const next = withRun(state, runId, at, (r) => ({
        ...r,
        steps: [...r.steps, { step, detail, at }],
        model: step === "invoking" && detail ? detail : r.model,
        usage: usage ?? r.usage,
      }));
      return { ...next, running: next.running ?? (next.runs[runId].status === "running" ? runId : null) };
    }
    case "pipeline:stream": {
      const key = `${frame.data.runId}:${frame.seq}:${state.runs[frame.data.runId]?.blocks.length ?? 0}`;
      const next = withRun(state, frame.data.runId, at, (r) => applyStream(r, frame.data, key));
      return { ...next, running: next.running ?? frame.data.runId };
    }
    case "pipeline:complete": {
      const { runId, durationMs, commandsHandled } = frame.data;
      const next = withRun(state, runId, at, (r) => ({ ...r, status: "complete", durationMs, commandsHandled, inputs: [] }));
      return { ...next, running: state.running === runId ? null : state.running };
    }
    case "pipeline:error": {
      const { runId, code, message, retryable } = frame.data;
      const next = withRun(state, runId, at, (r) => ({
        ...r,
        status: "error",
        error: { code, message, retryable },
        durationMs: r.durationMs ?? at - r.startedAt,
        inputs: [],
      }));
      return { ...next, running: state.running === runId ? null : state.running };
    }
    case "code:output": {
      const { threadId: _t, runId, ...out } = frame.data;
      return withRun(state, runId, at, (r) => applyCodeResult(r, out));
    }
    case "code:container": {
      // Said at the end of a run that ran code: the notice goes with that run.
      const notice = containerNotice(frame.data);
      if (!notice) return state;
      return withRun(state, frame.data.runId, at, (r) => ({ ...r, container: notice }));
    }
    case "artifact:updated": {
      const run = state.runs[frame.data.runId];
      return run ? { ...state, runs: { ...state.runs, [run.runId]: artifactWritten(run, frame.data.artifact.id) } } : state;
    }
    default:
      return state;
  }
}

export function chatReducer(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case "loading":
      return { ...state, load: "loading", loadError: undefined };
    case "loaded": {
      const ids = new Set(action.messages.map((m) => m.id));
      // Keep anything that arrived (optimistic confirmations) while loading.
      const extra = state.messages.filter((m) => !ids.has(m.id));
      for (const m of extra) ids.add(m.id);
      return { ...state, load: "ready", messages: [...action.messages, ...extra], ids, hasOlder: action.hasOlder };
    }
    case "loadFailed":
      return { ...state, load: "error", loadError: action.error };
    case "reloaded": {
      // The server's list is authoritative; keep what we hold beyond it (newer than that read).
      const ids = new Set(action.messages.map((m) => m.id));
      const extra = state.messages.filter((m) => !ids.has(m.id) && m.createdAt >= (action.messages.at(-1)?.createdAt ?? 0));
      for (const m of extra) ids.add(m.id);
      // Runs whose end we missed are over unless the server still says they run.
      let runs = state.runs;
      for (const run of Object.values(state.runs)) {
        if (run.status === "running" && run.runId !== state.running) {
          runs = { ...runs, [run.runId]: { ...run, status: "complete" } };
        }
      }
      return { ...state, load: "ready", messages: [...action.messages, ...extra], ids, runs };
    }
    case "olderLoading":
      return { ...state, loadingOlder: true };
    case "olderLoaded":
      return { ...addMessages(state, action.messages, "prepend"), loadingOlder: false, hasOlder: action.hasOlder };
    case "message":
      return addMessages(state, [action.message], "append");
    case "frame":
      return applyFrame(state, action.frame);
    case "resetRun": {
      if (!state.runs[action.runId]) return state;
      const runs = { ...state.runs };
      delete runs[action.runId];
      return { ...state, runs, runOrder: state.runOrder.filter((id) => id !== action.runId) };
    }
    case "branch":
      return showBranch(state, action.messages);
    case "cutAt":
      return cutAt(state, action.messageId);
    default:
      return state;
  }
}

/** Is this seq-carrying frame about the given run (used when replaying one run's events)? */
export function frameRunId(frame: ServerFrame): string | null {
  if (frame.event.startsWith("pipeline:") || frame.event === "code:output" || frame.event === "code:container") {
    const data = frame.data as { runId?: unknown };
    return typeof data.runId === "string" ? data.runId : null;
  }
  return null;
}
