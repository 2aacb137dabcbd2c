// What the routes and the threads ask of the user's projects (one RPC carries them all: `ProjectOps`
// names each with its arguments and answer). A change reaches the project's threads: their step 0
// reads the project again, and a deleted project's threads leave it.
import type { Project, ProjectFile } from "../../protocol";
import type { RunProject } from "../lib/run-project";
import type { Directory } from "./directory";
import type { StoredFiles } from "./stored-files";
import type { StoredProjectFile, UserProjects } from "./projects";


export interface ProjectOps {
  create: [{ name: string; instructions: string }, Project];
  list: [Record<string, never>, Project[]];
  get: [{ id: string }, Project | null];
  update: [{ id: string; name?: string; instructions?: string }, Project | null];
  delete: [{ id: string }, boolean];
  addFile: [{ file: StoredProjectFile; quota: number }, boolean | null];
  files: [{ id: string }, ProjectFile[] | null];
  deleteFile: [{ id: string; fileId: string }, boolean];
  forRun: [{ id: string }, RunProject | null];
}

/** What a project change asks of the world outside the object. */
export interface ProjectEffects {
  /** The project's threads read it again before their next run. */
  invalidate(threadIds: string[]): void;
  /** A deleted project's threads leave it. */
  leave(threadIds: string[], projectId: string): void;
  deleteBytes(keys: string[]): void;
  readText(key: string): Promise<string | null>;
}

const TEXT = /^text\/(plain|markdown|csv)$/;
/** A text file's text reaches the prompt up to this; the context budget cuts further. */
const MAX_TEXT_BYTES = 200_000;

export class ProjectBook {
  constructor(
    private readonly projects: UserProjects,
    private readonly stored: StoredFiles,
    private readonly directory: Directory,
    private readonly effects: ProjectEffects,
  ) {}

  async run<K extends keyof ProjectOps>(op: K, args: ProjectOps[K][0]): Promise<ProjectOps[K][1]> {
    return (this[op] as (a: ProjectOps[K][0]) => ProjectOps[K][1] | Promise<ProjectOps[K][1]>)(args);
  }

  create({ name, instructions }: ProjectOps["create"][0]): Project {
    return this.projects.create(name, instructions, Date.now());
  }

  list(): Project[] {
    return this.projects.list();
  }

  get({ id }: ProjectOps["get"][0]): Project | null {
    return this.projects.get(id);
  }

  update({ id, ...edits }: ProjectOps["update"][0]): Project | null {
    const project = this.projects.update(id, edits, Date.now());
    if (project) this.effects.invalidate(this.directory.inProject(id));
    return project;
  }

  /** The project and its files go; its threads stay, out of it. */
  delete({ id }: ProjectOps["delete"][0]): boolean {
    const keys = this.projects.remove(id);
    if (keys === null) return false;
    this.effects.deleteBytes(keys);
    this.effects.leave(this.directory.leaveProject(id), id);
    return true;
  }

  /** null: no such project; false: past the storage quota (nothing kept). */
  addFile({ file, quota }: ProjectOps["addFile"][0]): boolean | null {
    if (!this.projects.get(file.projectId)) return null;
    const kept = this.projects.addFile(file, this.stored.used(), quota);
    if (kept) this.effects.invalidate(this.directory.inProject(file.projectId));
    return kept;
  }

  files({ id }: ProjectOps["files"][0]): ProjectFile[] | null {
    return this.projects.get(id) ? this.projects.files(id).map(({ r2Key: _, ...f }) => f) : null;
  }

  deleteFile({ id, fileId }: ProjectOps["deleteFile"][0]): boolean {
    const key = this.projects.removeFile(id, fileId);
    if (key === null) return false;
    this.effects.deleteBytes([key]);
    this.effects.invalidate(this.directory.inProject(id));
    return true;
  }

  async forRun({ id }: ProjectOps["forRun"][0]): Promise<RunProject | null> {
    const project = this.projects.get(id);
    if (!project) return null;
    const files = await Promise.all(
      this.projects.files(id).map(async (f) => ({
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
