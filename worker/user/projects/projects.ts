// What the routes and the threads ask of the user's projects. A change reaches the project's threads:
// their step 0 reads the project again, and a deleted project's threads leave it. A file's text is
// the knowledge index's (extracted by the route, cut and indexed here); a run is given it whole while
// the project's text is small enough to be sent whole, else only the project's size (it retrieves).
import type { KnowledgeResult, Project, ProjectFile } from "../../../protocol";
import type { Logger } from "../../lib/logger";
import type { RunProject } from "../../lib/run-project";
import { CANDIDATES, cutPassages, fuse, type Embeddings, type FileKnowledge, type Found, type KnowledgeIndex, type Passage } from "../knowledge";
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
  /** Work after the answer (embeddings): the object stays up for it. */
  background(work: Promise<unknown>): void;
  logger: Logger;
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
    /** Hybrid ranking's embeddings, where the deployment binds them. */
    private readonly embeddings: Embeddings | null = null,
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
    this.forget(files.map((f) => f.id));
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
  indexed(id: string, fileId: string, sections: Passage[], pages: number | null, maxProjectChars = Infinity): boolean {
    if (!this.tables.file(id, fileId)) return false;
    const passages = cutPassages(sections);
    const chars = passages.reduce((n, p) => n + p.text.length, 0);
    // The project's text within its bound, this file's earlier text not counted (a reprocess replaces it).
    const others = this.knowledge.chars(id) - (this.knowledge.of([fileId]).get(fileId)?.chars ?? 0);
    if (others + chars > maxProjectChars) {
      this.knowledge.failed(fileId, id, `The project's documents would hold more than ${maxProjectChars.toLocaleString("en")} characters of text; remove some first`);
    } else {
      const before = this.knowledge.of([fileId]).get(fileId)?.passages ?? 0;
      this.knowledge.indexed(fileId, id, passages, pages);
      this.effects.invalidate(this.effects.threadsIn(id));
      if (this.embeddings) this.background(this.embeddings.remove(fileId, before).then(() => this.embeddings!.add(id, fileId, passages.map((p) => p.text))));
    }
    return true;
  }

  /** Its text could not be extracted: it says why, and is not searched. */
  failed(id: string, fileId: string, error: string): boolean {
    if (!this.tables.file(id, fileId)) return false;
    this.knowledge.failed(fileId, id, error);
    return true;
  }

  /**
   * The best passages of the project for `question`, with their files' names; null: no such project.
   * BM25's ranking, fused with the nearest passages' where the deployment embeds them.
   */
  async search(id: string, question: string, limit: number): Promise<KnowledgeResult[] | null> {
    if (!this.tables.get(id)) return null;
    const names = new Map(this.tables.files(id).map((f) => [f.id, f.name]));
    const named = (found: Found[]) => found.flatMap(({ id: _, ...r }) => (names.has(r.fileId) ? [{ ...r, name: names.get(r.fileId)! }] : []));
    if (!this.embeddings) return named(this.knowledge.search(id, question, limit));
    const lexical = this.knowledge.search(id, question, CANDIDATES);
    try {
      const near = await this.embeddings.nearest(id, question);
      const order = fuse([lexical.map((r) => r.id), near], limit);
      const fused = new Map(order.map((key, rank) => [key, order.length - rank]));
      return named(this.knowledge.byIds(id, order, (key) => fused.get(key) ?? 0));
    } catch (err) {
      this.effects.logger.warn("the nearest passages could not be found; BM25 alone ranks", { error: String(err) });
      return named(lexical.slice(0, limit));
    }
  }

  /** Deleted files: their passages and embeddings go. */
  private forget(fileIds: string[]): void {
    const counts = this.knowledge.of(fileIds);
    this.knowledge.remove(fileIds);
    if (this.embeddings) for (const [fileId, k] of counts) if (k.passages) this.background(this.embeddings.remove(fileId, k.passages));
  }

  private background(work: Promise<unknown>): void {
    this.effects.background(work.catch((err: unknown) => this.effects.logger.warn("embeddings could not be updated", { error: String(err) })));
  }

  deleteFile(id: string, fileId: string): boolean {
    const gone = this.tables.removeFile(id, fileId);
    if (gone === null) return false;
    this.forget([fileId]);
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
