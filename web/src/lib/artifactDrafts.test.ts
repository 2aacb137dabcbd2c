import type { ArtifactInfo, ServerFrame, StreamEvent } from "@protocol";
import { describe, expect, it } from "vitest";
import { frame } from "../testing/fixtures";
import { artifactDrafts, lineCount, writtenBy } from "./artifactDrafts";
import { chatReducer, initialChatState, type ChatAction, type ChatState } from "./chatState";

const run = { threadId: "thr_1", runId: "run_1" };
let seq = 0;
const on = (f: ServerFrame): ChatAction => ({ type: "frame", frame: f });
const stream = (e: StreamEvent) => on(frame("pipeline:stream", { ...run, ...e }, ++seq));
const input = (toolUseId: string, delta: string, toolName = "artifacts__create") => stream({ type: "tool_input", toolUseId, toolName, delta });
const call = (toolUseId: string, input: unknown, toolName = "artifacts__create") => stream({ type: "tool_call", toolUseId, toolName, input });
const result = (toolUseId: string, isError = false, toolName = "artifacts__create") => stream({ type: "tool_result", toolUseId, toolName, content: "ok", isError });
const art = (id: string, over: Partial<ArtifactInfo> = {}): ArtifactInfo => ({ id, title: "Plan", type: "markdown", language: null, version: 1, messageId: "msg_u1", updatedAt: 1, ...over });
const updated = (artifact: ArtifactInfo) => on(frame("artifact:updated", { ...run, artifact }, ++seq));

const started: ChatAction[] = [on(frame("pipeline:start", { ...run, messageId: "msg_u1" }, ++seq))];
const apply = (...actions: ChatAction[]) => [...started, ...actions].reduce(chatReducer, initialChatState("thr_1"));
const NO_ARTIFACTS: ArtifactInfo[] = [];
const drafts = (state: ChatState, known = NO_ARTIFACTS) => artifactDrafts(state.runs, state.runOrder, known);

const CREATE = JSON.stringify({ title: "Growing plan", type: "markdown", content: "# Plan\n\nstep \"one\"\nstep two" });
/** The create call's input in pieces, the third cut inside an escape. */
const CUTS = [0, 12, 40, CREATE.indexOf('\\"one') + 1, CREATE.length];
const PIECES = CUTS.slice(1).map((end, i) => CREATE.slice(CUTS[i], end));

describe("the fold of a tool call's streaming input", () => {
  it("grows a draft from each piece, with the title, type and content so far, in the exchange of its run", () => {
    expect(PIECES.join("")).toBe(CREATE);
    let state = apply(input("tu_1", PIECES[0]));
    expect(state.runs.run_1.inputs).toEqual([{ toolUseId: "tu_1", toolName: "artifacts__create", json: PIECES[0], complete: false }]);
    expect(drafts(state)).toEqual([
      { toolUseId: "tu_1", runId: "run_1", messageId: "msg_u1", artifactId: null, title: "Gr", type: null, language: null, content: "", complete: false },
    ]);
    state = [input("tu_1", PIECES[1]), input("tu_1", PIECES[2])].reduce(chatReducer, state);
    expect(PIECES[2].endsWith("\\")).toBe(true); // cut inside the escape of a quote: left out until it ends
    expect(drafts(state)[0]).toMatchObject({ title: "Growing plan", type: "markdown", content: "# Plan\n\nstep " });
    state = [input("tu_1", PIECES[3])].reduce(chatReducer, state);
    expect(drafts(state)[0]).toMatchObject({ content: '# Plan\n\nstep "one"\nstep two', complete: false });
    // The text streamed is the answer's alone: the input is not in it.
    expect(state.runs.run_1.text).toBe("");
  });

  it("keeps the draft while its tool runs, and gives it up for the artifact it wrote", () => {
    let state = apply(...PIECES.map((p) => input("tu_1", p)), call("tu_1", JSON.parse(CREATE)));
    expect(drafts(state)[0]).toMatchObject({ toolUseId: "tu_1", complete: true });
    const made = art("art_1", { title: "Growing plan" });
    state = chatReducer(state, updated(made));
    expect(drafts(state)).toEqual([]);
    expect(writtenBy(state.runs, "tu_1")).toBe("art_1");
    state = chatReducer(state, result("tu_1"));
    expect(state.runs.run_1.inputs).toEqual([]);
    expect(state.runs.run_1.blocks.map((b) => b.kind)).toEqual(["tool_call", "tool_result"]);
  });

  it("pairs each artifact with the call that is running, when a turn makes several", () => {
    const second = JSON.stringify({ title: "Code", type: "code", language: "python", content: "print(1)" });
    // Both calls of one response came; then their tools run, in order.
    let state = apply(input("tu_1", CREATE), call("tu_1", {}), input("tu_2", second), call("tu_2", {}));
    expect(drafts(state).map((d) => [d.toolUseId, d.title, d.language])).toEqual([
      ["tu_1", "Growing plan", null],
      ["tu_2", "Code", "python"],
    ]);
    state = [updated(art("art_1")), result("tu_1")].reduce(chatReducer, state);
    expect(drafts(state).map((d) => d.toolUseId)).toEqual(["tu_2"]);
    state = [updated(art("art_2")), result("tu_2")].reduce(chatReducer, state);
    expect([writtenBy(state.runs, "tu_1"), writtenBy(state.runs, "tu_2")]).toEqual(["art_1", "art_2"]);
    expect(drafts(state)).toEqual([]);
  });

  it("drops a draft whose tool failed, and every draft when its run ends", () => {
    let state = apply(input("tu_1", CREATE), call("tu_1", {}), result("tu_1", true));
    expect(drafts(state)).toEqual([]);
    expect(writtenBy(state.runs, "tu_1")).toBeUndefined();
    state = chatReducer(apply(input("tu_2", CREATE.slice(0, 30))), on(frame("pipeline:error", { ...run, code: "aborted", message: "Stopped", retryable: false }, ++seq)));
    expect(state.runs.run_1.inputs).toEqual([]);
    expect(drafts(state)).toEqual([]);
  });

  it("previews an update only with whole content, naming its artifact; other tools' inputs are kept but never drafts", () => {
    const known = [art("art_9", { title: "Launch plan", type: "code", language: "ts" })];
    let state = apply(input("tu_u", '{"id":"art_9","old_str":"a","new_str":"b"}', "artifacts__update"), input("tu_m", '{"command":"view"', "memory"));
    expect(state.runs.run_1.inputs.map((i) => i.toolName)).toEqual(["artifacts__update", "memory"]);
    expect(drafts(state, known)).toEqual([]);
    state = apply(input("tu_v", '{"id":"art_9","content":"let a = 1;\\nlet', "artifacts__update"));
    expect(drafts(state, known)).toEqual([
      { toolUseId: "tu_v", runId: "run_1", messageId: "msg_u1", artifactId: "art_9", title: "Launch plan", type: "code", language: "ts", content: "let a = 1;\nlet", complete: false },
    ]);
  });

  it("gives the same draft object while its input is unchanged (what shows it is not drawn again)", () => {
    const state = apply(input("tu_1", CREATE.slice(0, 30)));
    const later = chatReducer(state, stream({ type: "text", delta: "more words" }));
    expect(drafts(later)[0]).toBe(drafts(state)[0]);
    expect(drafts(chatReducer(later, input("tu_1", "x")))[0]).not.toBe(drafts(state)[0]);
  });
});

describe("lineCount", () => {
  it("counts lines so far", () => {
    expect([lineCount(""), lineCount("a"), lineCount("a\n"), lineCount("a\nb\nc")]).toEqual([0, 1, 2, 3]);
  });
});
