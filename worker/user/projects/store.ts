// The user's projects in their object's SQLite: a name, instructions and files (their bytes in R2 under the user's storage
// quota) that every thread of the project has in its system prompt, and a memory folder of its own.
import type { Project, ProjectFile } from "../../../protocol";
import { newId } from "../../lib/ids";

const TABLES = `
CREATE TABLE IF NOT EXISTS projects (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, instructions TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS project_files (
  id TEXT PRIMARY KEY, project_id TEXT NOT NULL, name TEXT NOT NULL, media_type TEXT NOT NULL, bytes INTEGER NOT NULL,
  r2_key TEXT NOT NULL, created_at INTEGER NOT NULL
);
`;

type ProjectRow = { id: string; name: string; instructions: string; created_at: number; updated_at: number };
type FileRow = { id: string; project_id: string; name: string; media_type: string; bytes: number; r2_key: string; created_at: number };

/** A project's file with where its bytes are (for the thread's step 0 and the file's deletion); its knowledge is the index's. */
export type StoredProjectFile = Omit<ProjectFile, "status" | "error" | "pages" | "passages"> & { r2Key: string };

const project = (r: ProjectRow): Project => ({ id: r.id, name: r.name, instructions: r.instructions, createdAt: r.created_at, updatedAt: r.updated_at });
const file = (r: FileRow): StoredProjectFile => ({
  id: r.id,
  projectId: r.project_id,
  name: r.name,
  mediaType: r.media_type,
  bytes: r.bytes,
  createdAt: r.created_at,
  r2Key: r.r2_key,
});

/** The bounds a new file must keep: the user's storage quota, and the files a project holds. */
export interface FileBounds {
  quotaBytes: number;
  maxFiles: number;
}

/** Why a file was not kept: past the storage quota, or the project's files. */
export type FileRefusal = "quota" | "files";

export class ProjectTables {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(TABLES);
  }

  create(name: string, instructions: string, now: number): Project {
    const row: ProjectRow = { id: newId("prj", now), name, instructions, created_at: now, updated_at: now };
    this.sql.exec("INSERT INTO projects VALUES (?, ?, ?, ?, ?)", row.id, row.name, row.instructions, row.created_at, row.updated_at);
    return project(row);
  }

  list(): Project[] {
    return this.sql.exec<ProjectRow>("SELECT * FROM projects ORDER BY name COLLATE NOCASE, id").toArray().map(project);
  }

  get(id: string): Project | null {
    const [r] = this.sql.exec<ProjectRow>("SELECT * FROM projects WHERE id = ?", id).toArray();
    return r ? project(r) : null;
  }

  update(id: string, edits: { name?: string; instructions?: string }, now: number): Project | null {
    const old = this.get(id);
    if (!old) return null;
    const name = edits.name ?? old.name;
    const instructions = edits.instructions ?? old.instructions;
    this.sql.exec("UPDATE projects SET name = ?, instructions = ?, updated_at = ? WHERE id = ?", name, instructions, now, id);
    return { ...old, name, instructions, updatedAt: now };
  }

  /** Removes the project and its files' records; the files (to delete their bytes and index), or null if there was none. */
  remove(id: string): StoredProjectFile[] | null {
    if (!this.get(id)) return null;
    const files = this.files(id);
    this.sql.exec("DELETE FROM project_files WHERE project_id = ?", id);
    this.sql.exec("DELETE FROM projects WHERE id = ?", id);
    return files;
  }

  files(projectId: string): StoredProjectFile[] {
    return this.sql.exec<FileRow>("SELECT * FROM project_files WHERE project_id = ? ORDER BY name, id", projectId).toArray().map(file);
  }

  /** Keeps a file's record if all the user's files (attachments included, `usedBytes`) stay within `quota`. */
  addFile(f: StoredProjectFile, usedBytes: number, bounds: FileBounds): FileRefusal | null {
    if (usedBytes + f.bytes > bounds.quotaBytes) return "quota";
    if (this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM project_files WHERE project_id = ?", f.projectId).one().n >= bounds.maxFiles) return "files";
    this.sql.exec("INSERT INTO project_files VALUES (?, ?, ?, ?, ?, ?, ?)", f.id, f.projectId, f.name, f.mediaType, f.bytes, f.r2Key, f.createdAt);
    return null;
  }

  /** Removes a file's record; the file, or null if the project has no such file. */
  removeFile(projectId: string, fileId: string): StoredProjectFile | null {
    const [r] = this.sql.exec<FileRow>("DELETE FROM project_files WHERE id = ? AND project_id = ? RETURNING *", fileId, projectId).toArray();
    return r ? file(r) : null;
  }

  file(projectId: string, fileId: string): StoredProjectFile | null {
    const [r] = this.sql.exec<FileRow>("SELECT * FROM project_files WHERE id = ? AND project_id = ?", fileId, projectId).toArray();
    return r ? file(r) : null;
  }

  bytes(): number {
    return this.sql.exec<{ n: number }>("SELECT coalesce(sum(bytes), 0) AS n FROM project_files").one().n;
  }
}
