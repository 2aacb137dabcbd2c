// The code execution tool of the fake Messages API: its containers, the result blocks a `blocks` step
// streams for it, and the `code` step (one command and its result, written as a blocks step).
//
// Wire shapes follow @anthropic-ai/sdk 1.12's types (BashCodeExecutionToolResultBlock,
// TextEditorCodeExecutionToolResultBlock, CodeExecutionToolResultBlock, Container, ContainerUploadBlockParam)
// and streams recorded from the real API (vercel/ai packages/anthropic/src/__fixtures__/
// anthropic-code-execution-20250825.1.chunks.txt, anthropic-code-execution-file-upload.1.chunks.txt,
// anthropic-code-execution-20260120-*.chunks.txt):
//   - server_tool_use for bash_code_execution / text_editor_code_execution starts as {type, id, name,
//     input: {}} (no `caller`, although the SDK's type declares one), then input_json_delta pieces;
//   - the result block arrives whole, {type, tool_use_id, content} (no `caller`), content
//     {type: "bash_code_execution_result", stdout, stderr, return_code, content: [{type:
//     "bash_code_execution_output", file_id}]} or {type: "bash_code_execution_tool_result_error", error_code};
//   - message_start carries no container; message_delta's delta carries container {id, expires_at} (a rolling
//     expiry about an hour ahead, "2026-07-30T18:53:29.651134Z"), with `skills` only when the request loaded
//     some; usage.server_tool_use is {web_search_requests: 0, web_fetch_requests: 0}.
// A request with a code_execution_* tool, or a `container` param, runs in a container: the one it names
// (string, or {id, skills}) or a fresh one. Files referenced by container_upload blocks are copied into it.
import { addFile, isoNow, mediaTypeOf } from "./files-api.mjs";
import { randomId } from "./ids.mjs";

/** The tool a request must declare for each server tool call the model makes (its `name`). */
export const CODE_TOOL_NAMES = ["code_execution", "bash_code_execution", "text_editor_code_execution"];

export const CODE_RESULT_TYPE = {
  code_execution: "code_execution_tool_result",
  bash_code_execution: "bash_code_execution_tool_result",
  text_editor_code_execution: "text_editor_code_execution_tool_result",
};

const TEXT_EDITOR_RESULTS = new Set([
  "text_editor_code_execution_view_result",
  "text_editor_code_execution_create_result",
  "text_editor_code_execution_str_replace_result",
]);

/** How far ahead a container's rolling expires_at is (the recordings show about an hour). */
const CONTAINER_TTL_MS = 60 * 60 * 1000;

// ---------------------------------------------------------------------------
// Steps
// ---------------------------------------------------------------------------

/**
 * The `code` step as the blocks step it stands for: optional text, one bash_code_execution call
 * (code_execution with {code} for version "20250522") and its result, optional text after.
 */
export function codeStepAsBlocks(step) {
  const python = step.version === "20250522";
  const blocks = [];
  if (step.text) blocks.push({ type: "text", text: step.text });
  const input = python ? { code: step.code ?? step.command } : { command: step.command ?? step.code };
  blocks.push({ type: "server_tool_use", name: python ? "code_execution" : "bash_code_execution", input, ...(step.id ? { id: step.id } : {}) });
  const { stdout, stderr, returnCode, files, errorCode, resultDelayMs: delayMs } = step;
  blocks.push({ type: CODE_RESULT_TYPE[python ? "code_execution" : "bash_code_execution"], stdout, stderr, returnCode, files, errorCode, delayMs });
  if (step.answer) blocks.push({ type: "text", text: step.answer });
  const { stopReason, usage, delayMs: stepDelay } = step;
  return { kind: "blocks", blocks, stopReason, usage, delayMs: stepDelay };
}

/** Why a code result block can never be played, or null (server-tools.mjs's checkBlocksStep asks). */
export function checkCodeResult(block) {
  if (block.errorCode !== undefined) return typeof block.errorCode === "string" ? null : "errorCode must be a string";
  if (block.type === "text_editor_code_execution_tool_result") {
    return TEXT_EDITOR_RESULTS.has(block.content?.type) ? null : `content.type must be one of ${[...TEXT_EDITOR_RESULTS].join(", ")} (or give errorCode)`;
  }
  if (block.returnCode !== undefined && !Number.isInteger(block.returnCode)) return "returnCode must be an integer";
  for (const [k, f] of (block.files ?? []).entries()) {
    if (typeof f?.name !== "string" || f.name === "") return `files[${k}].name is required`;
    if (typeof f.text !== "string" && typeof f.base64 !== "string") return `files[${k}] needs text or base64`;
  }
  return null;
}

/** The `content` of a code result block; files the code made are stored (downloadable) and put in the container. */
export function codeResultContent(block, produce) {
  const kind = block.type.replace(/_tool_result$/, ""); // bash_code_execution, code_execution, text_editor_code_execution
  if (block.errorCode !== undefined) {
    const error = { type: `${kind}_tool_result_error`, error_code: block.errorCode };
    return kind === "text_editor_code_execution" ? { ...error, error_message: block.errorMessage ?? null } : error;
  }
  if (kind === "text_editor_code_execution") return block.content;
  const outputs = (block.files ?? []).map((f) => ({ type: `${kind}_output`, file_id: produce(f) }));
  return { type: `${kind}_result`, stdout: block.stdout ?? "", stderr: block.stderr ?? "", return_code: block.returnCode ?? 0, content: outputs };
}

/** Why the request's code execution tool cannot make this call, or null. */
export function codeToolMismatch(name, tool) {
  if (name !== "code_execution" && tool.type === "code_execution_20250522") {
    return `fake-upstream: the script calls ${name}, but the request's code execution tool is code_execution_20250522 (Python only); bash and the text editor came with code_execution_20250825`;
  }
  return null;
}

// ---------------------------------------------------------------------------
// Containers
// ---------------------------------------------------------------------------

function declaresCodeExecution(body) {
  return (Array.isArray(body.tools) ? body.tools : []).some((t) => typeof t?.type === "string" && t.type.startsWith("code_execution_"));
}

function containerId(body) {
  const c = body.container;
  return typeof c === "string" ? c : typeof c?.id === "string" ? c.id : undefined;
}

/** A 400 (or the answer set with POST /_control/containers/expire) for the request's container and uploads, or null. */
export function containerRefusal(state, body) {
  const id = containerId(body);
  if (id !== undefined) {
    const container = state.containers.get(id);
    if (!container) return refuse(`container: Container ${id} not found. Send the request again without the \`container\` parameter to get a new container.`);
    if (container.expired) return container.expiredError;
  }
  const uploads = containerUploads(body);
  if (uploads.length > 0 && !declaresCodeExecution(body)) return refuse(`${uploads[0].at}: container_upload blocks require the code execution tool`);
  for (const { at, fileId } of uploads) {
    if (!state.files.files.has(fileId)) return refuse(`${at}.file_id: File not found: ${fileId}`);
  }
  return null;
}

/** The container the (accepted) request runs in, with its uploads copied in; null when it runs in none. */
export function openContainer(state, body) {
  const id = containerId(body);
  if (id === undefined && !declaresCodeExecution(body) && body.container == null) return null;
  let container = id === undefined ? undefined : state.containers.get(id);
  if (!container) {
    container = { id: randomId("container_"), files: new Set(), expired: false, skills: containerSkills(body.container) };
    state.containers.set(container.id, container);
  }
  container.expiresAt = isoNow(CONTAINER_TTL_MS);
  for (const { fileId } of containerUploads(body)) container.files.add(fileId);
  return container;
}

/** message_delta's (and the assembled message's) `container`. */
export function containerWire(container) {
  return { id: container.id, expires_at: container.expiresAt, ...(container.skills ? { skills: container.skills } : {}) };
}

/** Stores a file the scripted code made, in the file store and the container. */
export function producer(state, container) {
  return (spec) => {
    const bytes = typeof spec.base64 === "string" ? Buffer.from(spec.base64, "base64") : Buffer.from(spec.text ?? "", "utf8");
    const file = addFile(state.files, { id: spec.id, filename: spec.name, mimeType: spec.mediaType ?? mediaTypeOf(spec.name), bytes, downloadable: true, source: "code" });
    container?.files.add(file.id);
    return file.id;
  };
}

/** POST /_control/containers/expire: { id, status?, type?, message? } — later requests naming it get that error. */
export function expireContainer(state, { id, status, type, message }) {
  const container = state.containers.get(id);
  if (!container) return false;
  container.expired = true;
  container.expiredError = status
    ? { status, type: type ?? (status === 404 ? "not_found_error" : status >= 500 ? "api_error" : "invalid_request_error"), message }
    : refuse(`container: Container ${id} has expired and can't be reused. Send the request again without the \`container\` parameter to get a new container.`);
  return true;
}

/** For GET /_control/containers. */
export function containerStats(state) {
  const containers = [...state.containers.values()].map((c) => ({ id: c.id, expires_at: c.expiresAt, expired: c.expired, files: [...c.files] }));
  return { containers };
}

function containerUploads(body) {
  const uploads = [];
  (Array.isArray(body.messages) ? body.messages : []).forEach((m, i) => {
    if (!Array.isArray(m?.content)) return;
    m.content.forEach((b, j) => {
      if (b?.type === "container_upload") uploads.push({ at: `messages.${i}.content.${j}`, fileId: b.file_id });
    });
  });
  return uploads;
}

/** Skills the request loads, as the response reports them ({type, skill_id, version}). */
function containerSkills(param) {
  if (!Array.isArray(param?.skills) || param.skills.length === 0) return undefined;
  return param.skills.map((s) => ({ type: s.type, skill_id: s.skill_id, version: s.version ?? "latest" }));
}

function refuse(message) {
  return { status: 400, type: "invalid_request_error", message };
}
