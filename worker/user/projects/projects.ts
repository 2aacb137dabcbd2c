// What the routes and the threads ask of the user's projects. A change reaches the project's threads:
// their step 0 reads the project again, and a deleted project's threads leave it. A file's text is
// the knowledge index's (extracted by the route, cut and indexed here); a run is given it whole while
// the project's text is small enough to be sent whole, else only the project's size (it retrieves).
import type { Project, ProjectFile } from "../../../protocol";
import type { RunProject } from "../../lib/run-project";
import { cutPassages, type FileKnowledge, type KnowledgeIndex, type Passage } from "../knowledge";
import { ProjectTables, type FileBounds, type FileRefusal, type StoredProjectFile } from "./store";

/** What a project change asks of the rest of the user's object and of the world outside it. */
export interface ProjectEffects {
  /** The threads in a project (the directory's). */
  threadsIn(projectId: string): string[];
  /** A deleted project's threads leave it in the directory; their ids. */
  leaveInDirectory(projectId: string): string[];
  /** Every byte under the user's storage quota now. */
  storageUsed(): number;
  /** The project's threads read it again before their next run. */
  invalidate(threadIds: string[]): void;
  /** A deleted project's threads leave it. */
  leave(threadIds: string[], projectId: string): void;
  /** Deleted files: their bytes, their uploads' records. */
  filesGone(files: StoredProjectFile[]): void;
  readText(key: string): Promise<string | null>;
}

/** Text files from before the index, which a run reads and indexes on the way (cheap: no parsing). */
const TEXT = /^(text\/(plain|markdown|csv)|application\/json)$/;
const MAX_TEXT_BYTES = 10 * 1024 * 1024;
/**
 * Past this much text a project is never sent whole (a quarter of the largest window); below it, the
 * run decides by its model's window (RunProject.textChars).
 */
export const WHOLE_TEXT_MAX_CHARS = 1_000_000;

export class Projects {
  private readonly tables: ProjectTables;

  constructor(
    sql: SqlStorage,
    private readonly effects: ProjectEffects,
    private readonly knowledge: KnowledgeIndex,
  ) {
    this.tables = new ProjectTables(sql);
  }

  create(name: string, instructions: string): Project {
    return this.tables.create(name, instructions, Date.now());
  }

  list(): Project[] {
    return this.tables.list();
  }

  get(id: string): Project | null {
    return this.tables.get(id);
  }

  update(id: string, edits: { name?: string; instructions?: string }): Project | null {
    const project = this.tables.update(id, edits, Date.now());
    if (project) this.effects.invalidate(this.effects.threadsIn(id));
    return project;
  }

  /** The project and its files go; its threads stay, out of it. */
  delete(id: string): boolean {
    const files = this.tables.remove(id);
    if (files === null) return false;
    this.knowledge.remove(files.map((f) => f.id));
    this.effects.filesGone(files);
    this.effects.leave(this.effects.leaveInDirectory(id), id);
    return true;
  }

  /** null: no such project; else "kept", or why not (nothing kept). Its text is on its way (processing). */
  addFile(file: StoredProjectFile, bounds: FileBounds): "kept" | FileRefusal | null {
    if (!this.tables.get(file.projectId)) return null;
    const refused = this.tables.addFile(file, this.effects.storageUsed(), bounds);
    if (refused) return refused;
    this.knowledge.processing(file.id, file.projectId);
    this.effects.invalidate(this.effects.threadsIn(file.projectId));
    return "kept";
  }

  files(id: string): ProjectFile[] | null {
    if (!this.tables.get(id)) return null;
    const files = this.tables.files(id);
    const known = this.knowledge.of(files.map((f) => f.id));
    return files.map(({ r2Key: _, ...f }) => withKnowledge(f, known.get(f.id)));
  }

  file(id: string, fileId: string): (ProjectFile & { r2Key: string }) | null {
    const f = this.tables.file(id, fileId);
    return f ? { ...withKnowledge(f, this.knowledge.of([fileId]).get(fileId)), r2Key: f.r2Key } : null;
  }

  /** The file's text is extracted again (a reprocess): null if the project has no such file. */
  reprocess(id: string, fileId: string): ProjectFile | null {
    const f = this.tables.file(id, fileId);
    if (!f) return null;
    this.knowledge.processing(fileId, id);
    return this.file(id, fileId);
  }

  /** The sections extracted from the file, cut into passages and indexed: it is ready (false: no such file any more). */
  indexed(id: string, fileId: string, sections: Passage[], pages: number | null): boolean {
    if (!this.tables.file(id, fileId)) return false;
    this.knowledge.indexed(fileId, id, cutPassages(sections), pages);
    this.effects.invalidate(this.effects.threadsIn(id));
    return true;
  }

  /** Its text could not be extracted: it says why, and is not searched. */
  failed(id: string, fileId: string, error: string): boolean {
    if (!this.tables.file(id, fileId)) return false;
    this.knowledge.failed(fileId, id, error);
    return true;
  }

  /** The best passages of the project for `question`, with their files' names; null: no such project. */
  search(id: string, question: string, limit: number) {
    if (!this.tables.get(id)) return null;
    const names = new Map(this.tables.files(id).map((f) => [f.id, f.name]));
    return this.knowledge.search(id, question, limit).flatMap((r) => (names.has(r.fileId) ? [{ ...r, name: names.get(r.fileId)! }] : []));
  }

  deleteFile(id: string, fileId: string): boolean {
    const gone = this.tables.removeFile(id, fileId);
    if (gone === null) return false;
    this.knowledge.remove([fileId]);
    this.effects.filesGone([gone]);
    this.effects.invalidate(this.effects.threadsIn(id));
    return true;
  }

  /** Every byte of the user's projects' files (they count against the storage quota). */
  bytes(): number {
    return this.tables.bytes();
  }

  /**
   * The project as a thread's run is given it: each file's text while the project's text is within
   * WHOLE_TEXT_MAX_CHARS (else none: the run retrieves), and how much text it holds. A text file from
   * before the index is indexed on the way.
   */
  async forRun(id: string): Promise<RunProject | null> {
    const project = this.tables.get(id);
    if (!project) return null;
    const files = this.tables.files(id);
    await this.indexOlder(id, files);
    const textChars = this.knowledge.chars(id);
    const texts = textChars <= WHOLE_TEXT_MAX_CHARS ? this.knowledge.texts(id) : new Map<string, string>();
    return {
      id,
      name: project.name,
      instructions: project.instructions,
      textChars,
      files: files.map((f) => ({ id: f.id, name: f.name, mediaType: f.mediaType, bytes: f.bytes, text: texts.get(f.id) ?? null, r2Key: f.r2Key })),
    };
  }

  /** Text files stored before the index: read, cut and indexed now (their text needs no parsing). */
  private async indexOlder(id: string, files: StoredProjectFile[]): Promise<void> {
    const known = this.knowledge.of(files.map((f) => f.id));
    for (const f of files) {
      if (known.has(f.id) || !TEXT.test(f.mediaType) || f.bytes > MAX_TEXT_BYTES) continue;
      const text = await this.effects.readText(f.r2Key);
      if (text !== null) this.knowledge.indexed(f.id, id, cutPassages([{ location: { heading: "" }, text }]), null);
    }
  }
}

/** Extraction runs after its upload's answer; one still processing after this long was cut off (the Worker's time ran out). */
const PROCESSING_MS = 10 * 60_000;

/** A file with its knowledge; one the index never heard of (an image from before it) reads as ready. */
function withKnowledge(f: Omit<ProjectFile, "status">, k: FileKnowledge | undefined, now = Date.now()): ProjectFile {
  if (!k) return { ...f, status: "ready" };
  if (k.status === "processing" && now - k.updatedAt > PROCESSING_MS) return { ...f, status: "failed", error: "Its text was not extracted in time; process it again" };
  const { status, error, pages, passages } = k;
  return { ...f, status, ...(error ? { error } : {}), ...(pages !== undefined ? { pages } : {}), ...(passages !== undefined ? { passages } : {}) };
}
