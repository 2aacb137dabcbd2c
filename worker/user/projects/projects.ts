// What the routes and the threads ask of the user's projects. A change reaches the project's threads:
// their step 0 reads the project again, and a deleted project's threads leave it.
import type { Project, ProjectFile } from "../../../protocol";
import type { RunProject } from "../../lib/run-project";
import { ProjectTables, type StoredProjectFile } from "./store";

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
  deleteBytes(keys: string[]): void;
  readText(key: string): Promise<string | null>;
}

const TEXT = /^(text\/(plain|markdown|csv)|application\/json)$/;
/** A text file's text reaches the prompt up to this; the context budget cuts further. */
const MAX_TEXT_BYTES = 200_000;

export class Projects {
  private readonly tables: ProjectTables;

  constructor(
    sql: SqlStorage,
    private readonly effects: ProjectEffects,
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
    const keys = this.tables.remove(id);
    if (keys === null) return false;
    this.effects.deleteBytes(keys);
    this.effects.leave(this.effects.leaveInDirectory(id), id);
    return true;
  }

  /** null: no such project; false: past the storage quota (nothing kept). */
  addFile(file: StoredProjectFile, quota: number): boolean | null {
    if (!this.tables.get(file.projectId)) return null;
    const kept = this.tables.addFile(file, this.effects.storageUsed(), quota);
    if (kept) this.effects.invalidate(this.effects.threadsIn(file.projectId));
    return kept;
  }

  files(id: string): ProjectFile[] | null {
    return this.tables.get(id) ? this.tables.files(id).map(({ r2Key: _, ...f }) => f) : null;
  }

  deleteFile(id: string, fileId: string): boolean {
    const key = this.tables.removeFile(id, fileId);
    if (key === null) return false;
    this.effects.deleteBytes([key]);
    this.effects.invalidate(this.effects.threadsIn(id));
    return true;
  }

  /** Every byte of the user's projects' files (they count against the storage quota). */
  bytes(): number {
    return this.tables.bytes();
  }

  /** The project as a thread's run is given it: a text file with its text. */
  async forRun(id: string): Promise<RunProject | null> {
    const project = this.tables.get(id);
    if (!project) return null;
    const files = await Promise.all(
      this.tables.files(id).map(async (f) => ({
        id: f.id,
        name: f.name,
        mediaType: f.mediaType,
        bytes: f.bytes,
        text: TEXT.test(f.mediaType) && f.bytes <= MAX_TEXT_BYTES ? await this.effects.readText(f.r2Key) : null,
        r2Key: f.r2Key,
      })),
    );
    return { id, name: project.name, instructions: project.instructions, files };
  }
}
