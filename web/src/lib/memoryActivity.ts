// The memory tool's calls (its commands on the notes under /memories), as a person reads them:
// "Saved a note: /memories/prefs.md" rather than the JSON the model sent.

import { isRecord } from "./untrusted";

export { MEMORY_TOOL } from "@protocol";

export interface MemoryActivity {
  /** "Saved a note", "Read notes", … */
  action: string;
  /** The same when the tool refused: "Could not save a note". */
  failed: string;
  /** The note or folder (both paths for a rename). */
  path: string;
  /** What was written, for a look on demand: a new note's text, an edit's before and after. */
  detail: string | null;
}

const text = (v: unknown): string => (typeof v === "string" ? v : v === undefined || v === null ? "" : String(v));

/** A folder is viewed as a listing, a file as its text: a last segment without a dot is a folder. */
const isFolder = (path: string) => !/\.[^/]+$/.test(path);

export function describeMemoryCall(input: unknown): MemoryActivity {
  const i = isRecord(input) ? input : {};
  const path = text(i.path);
  const done = (action: string, failed: string, detail: string | null = null, shown = path) => ({ action, failed, path: shown, detail });
  switch (i.command) {
    case "view":
      return isFolder(path) ? done("Read notes", "Could not read notes") : done("Read a note", "Could not read a note");
    case "create":
      return done("Saved a note", "Could not save a note", text(i.file_text));
    case "str_replace":
      return done("Edited a note", "Could not edit a note", `Replaced:\n${text(i.old_str)}\n\nWith:\n${text(i.new_str)}`);
    case "insert":
      return done("Added to a note", "Could not add to a note", text(i.insert_text));
    case "delete":
      return isFolder(path) ? done("Deleted notes", "Could not delete notes") : done("Deleted a note", "Could not delete a note");
    case "rename":
      return done("Renamed a note", "Could not rename a note", null, `${text(i.old_path)} → ${text(i.new_path)}`);
    default: {
      const command = typeof i.command === "string" ? ` (${i.command})` : "";
      return done(`Used memory${command}`, `Memory failed${command}`);
    }
  }
}
