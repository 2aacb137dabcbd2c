// Artifacts the model is writing: an artifacts__create call, or an artifacts__update with `content`,
// whose input is still streaming (pipeline:stream tool_input) or whose tool has not yet answered. Each
// is shown as a preview (a card, and the panel's growing source) until artifact:updated brings the
// artifact it became (the live run's `wrote`), its tool fails, or its run ends.

import { ARTIFACT_TYPES, type ArtifactInfo, type ArtifactType } from "@protocol";
import type { LiveRun } from "./liveRun";
import type { ToolInput } from "./toolInputs";
import { partialStrings } from "./partialJson";

export const CREATE_TOOL = "artifacts__create";
export const UPDATE_TOOL = "artifacts__update";

export interface ArtifactDraft {
  /** Its tool call's: the panel opens a preview by it (artifact ids are others). */
  toolUseId: string;
  runId: string;
  /** The exchange it belongs to (the message its run answers); null for a run joined mid-way. */
  messageId: string | null;
  /** The artifact an update rewrites; null for a new one. */
  artifactId: string | null;
  /** As far as it has come ("" before its first letters). */
  title: string;
  /** Null until it is whole (and one of the known types). */
  type: ArtifactType | null;
  language: string | null;
  /** The content so far. */
  content: string;
  /** Its input is whole (the tool runs): the artifact is being saved. */
  complete: boolean;
}

/**
 * Each input is read again only when it changed (the reducer keeps the others as they were), so a
 * draft stays the same object while its input does: what shows it is not drawn again for nothing.
 */
const read = new WeakMap<ToolInput, { known: readonly ArtifactInfo[]; draft: ArtifactDraft | null }>();

const isType = (t: string | undefined): t is ArtifactType => (ARTIFACT_TYPES as readonly string[]).includes(t ?? "");

/**
 * The preview of one streaming tool call, or null when it is none: another tool, an update by
 * replacement (old_str, new_str: there is no content to show), or an update whose content has not begun.
 * An update's title, type and language are its artifact's (from `known`, the branch's list).
 */
export function draftOf(input: ToolInput, run: Pick<LiveRun, "runId" | "messageId">, known: readonly ArtifactInfo[]): ArtifactDraft | null {
  const cached = read.get(input);
  if (cached?.known === known && (!cached.draft || cached.draft.messageId === run.messageId)) return cached.draft;
  const draft = readDraft(input, run, known);
  read.set(input, { known, draft });
  return draft;
}

function readDraft(input: ToolInput, run: Pick<LiveRun, "runId" | "messageId">, known: readonly ArtifactInfo[]): ArtifactDraft | null {
  const base = { toolUseId: input.toolUseId, runId: run.runId, messageId: run.messageId, complete: input.complete };
  const { strings, open } = partialStrings(input.json);
  // A field is taken once whole, except the title and the content, which are shown as they grow.
  const whole = (key: string) => (open === key ? undefined : strings[key]);
  if (input.toolName === CREATE_TOOL) {
    const type = whole("type");
    return {
      ...base,
      artifactId: null,
      title: strings.title ?? "",
      type: isType(type) ? type : null,
      language: whole("language")?.trim() || null,
      content: strings.content ?? "",
    };
  }
  if (input.toolName !== UPDATE_TOOL || strings.content === undefined) return null;
  const id = whole("id") ?? null;
  const artifact = known.find((a) => a.id === id);
  return { ...base, artifactId: id, title: artifact?.title ?? "", type: artifact?.type ?? null, language: artifact?.language ?? null, content: strings.content };
}

/** The previews of the runs in progress, in the order their calls began. */
export function artifactDrafts(runs: Readonly<Record<string, LiveRun>>, runOrder: readonly string[], known: readonly ArtifactInfo[]): ArtifactDraft[] {
  const drafts: ArtifactDraft[] = [];
  for (const runId of runOrder) {
    const run = runs[runId];
    if (run?.status !== "running") continue;
    for (const input of run.inputs) {
      const draft = draftOf(input, run, known);
      if (draft) drafts.push(draft);
    }
  }
  return drafts.length ? drafts : NONE;
}

const NONE: ArtifactDraft[] = [];

/** The artifact a tool call wrote, once artifact:updated said so (what its preview became). */
export function writtenBy(runs: Readonly<Record<string, LiveRun>>, toolUseId: string): string | undefined {
  for (const run of Object.values(runs)) {
    const id = run.wrote[toolUseId];
    if (id) return id;
  }
  return undefined;
}

/** How many lines a text has so far (a card's count of a draft's; none for ""). */
export function lineCount(text: string): number {
  if (!text) return 0;
  let lines = 1;
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) lines++;
  return lines;
}
