// A run's code runs as the chat reducer folds them from the socket: their input (never an artifact's
// preview), their output and files, the container's notice; and a page joined mid-run replays them.
import type { ProducedFile, ServerFrame } from "@protocol";
import { describe, expect, it } from "vitest";
import { frame } from "../testing/fixtures";
import { artifactDrafts, CREATE_TOOL } from "./artifactDrafts";
import { chatReducer, frameRunId, initialChatState, type ChatAction } from "./chatState";

const run = { threadId: "thr_1", runId: "run_1" };
const on = (f: ServerFrame): ChatAction => ({ type: "frame", frame: f });
const apply = (...actions: ChatAction[]) => actions.reduce(chatReducer, initialChatState("thr_1"));

const chart: ProducedFile = { id: "file_1", threadId: "thr_1", runId: "run_1", name: "chart.png", mediaType: "image/png", bytes: 5_000, createdAt: 9 };
const piece = (delta: string, seq: number, toolName = "bash_code_execution", toolUseId = "srvtoolu_1") =>
  on(frame("pipeline:stream", { ...run, type: "tool_input", toolUseId, toolName, delta }, seq));

/** A run that writes a command, runs it, and gets its output with a chart. */
const codeRun: ChatAction[] = [
  on(frame("pipeline:start", { ...run, messageId: "msg_u1" }, 1)),
  piece('{"command": "python3 -c \\"print(', 2),
  piece('1)\\""}', 3),
  on(frame("pipeline:stream", { ...run, type: "server_tool_call", toolUseId: "srvtoolu_1", toolName: "bash_code_execution", input: { command: 'python3 -c "print(1)"' } }, 4)),
  on(frame("code:output", { ...run, toolUseId: "srvtoolu_1", stdout: "1\n", stderr: "", returnCode: 0, durationMs: 1_200, files: [chart] }, 5)),
];

describe("chat reducer: code runs", () => {
  it("folds a code run's input as it streams, never into the artifacts' previews", () => {
    const state = apply(...codeRun.slice(0, 3));
    const live = state.runs.run_1;
    expect(live.inputs).toEqual([]);
    expect(artifactDrafts(state.runs, state.runOrder, [])).toEqual([]);
    expect(live.code).toEqual([
      { toolUseId: "srvtoolu_1", toolName: "bash_code_execution", input: null, partial: '{"command": "python3 -c \\"print(1)\\""}', files: [], done: false },
    ]);
    // Nor does the web activity take it.
    expect(live.web.calls).toEqual([]);
  });

  it("gives the input whole with its call, then the output and files with code:output", () => {
    const state = apply(...codeRun);
    expect(state.runs.run_1.code).toEqual([
      {
        toolUseId: "srvtoolu_1",
        toolName: "bash_code_execution",
        input: { command: 'python3 -c "print(1)"' },
        partial: '{"command": "python3 -c \\"print(1)\\""}',
        stdout: "1\n",
        stderr: "",
        returnCode: 0,
        durationMs: 1_200,
        files: [chart],
        done: true,
      },
    ]);
    expect(state.runs.run_1.web.calls).toEqual([]);
  });

  it("still previews another tool's input (an artifact) beside a code run", () => {
    const state = apply(...codeRun.slice(0, 2), piece('{"title": "Notes", "type": "markdown", "content": "# N', 3, CREATE_TOOL, "toolu_a"));
    expect(state.runs.run_1.inputs.map((i) => i.toolUseId)).toEqual(["toolu_a"]);
    expect(artifactDrafts(state.runs, state.runOrder, [])).toMatchObject([{ toolUseId: "toolu_a", title: "Notes", content: "# N" }]);
    expect(state.runs.run_1.code.map((c) => c.toolUseId)).toEqual(["srvtoolu_1"]);
  });

  it("gives an output whose call it missed (a page that joined late) a card of its own", () => {
    const state = apply(on(frame("code:output", { ...run, toolUseId: "srvtoolu_9", error: "unavailable", files: [] }, 7)));
    expect(state.runs.run_1.code).toMatchObject([{ toolUseId: "srvtoolu_9", error: "unavailable", done: true }]);
  });

  it("keeps the container's notice with the run, only for an expired one or another branch's", () => {
    const container = (status: "new" | "reused" | "expired", reason?: "branch") =>
      on(frame("code:container", { ...run, status, ...(reason ? { reason } : {}) }, 6));
    expect(apply(...codeRun, container("expired")).runs.run_1.container).toEqual({ status: "expired" });
    expect(apply(...codeRun, container("new", "branch")).runs.run_1.container).toEqual({ status: "new", reason: "branch" });
    expect(apply(...codeRun, container("new")).runs.run_1.container).toBeUndefined();
    expect(apply(...codeRun, container("reused")).runs.run_1.container).toBeUndefined();
  });

  it("leaves a run's code runs as they were when it ends (a card without output says stopped)", () => {
    const state = apply(...codeRun.slice(0, 4), on(frame("pipeline:error", { ...run, code: "aborted", message: "Stopped", retryable: false }, 5)));
    expect(state.runs.run_1.status).toBe("error");
    expect(state.runs.run_1.code).toMatchObject([{ toolUseId: "srvtoolu_1", done: false }]);
  });

  it("replays code:output with the run it belongs to", () => {
    expect(frameRunId(frame("code:output", { ...run, toolUseId: "s", files: [] }))).toBe("run_1");
    expect(frameRunId(frame("code:container", { ...run, status: "new" }))).toBe("run_1");
  });
});
