// A project's knowledge in its owner's object: each file's extraction status, and its passages in an
// FTS5 index (BM25). Passages are written in one go per file, replacing what the file had, so a file
// is searchable whole or not at all; a deleted file's passages go with it. The project's id is an
// indexed column (weighted 0 in the ranking), so a search reads only that project's postings.
import type { KnowledgeResult, KnowledgeStatus, PassageLocation, ProjectFile } from "../../../protocol";
import { matchQuery } from "../../lib/match-query";
import type { Passage } from "../../lib/passages";

const TABLES = `
CREATE TABLE IF NOT EXISTS knowledge_files (
  file_id TEXT PRIMARY KEY, project_id TEXT NOT NULL, status TEXT NOT NULL, error TEXT, pages INTEGER,
  passages INTEGER NOT NULL DEFAULT 0, chars INTEGER NOT NULL DEFAULT 0, updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS knowledge_files_project ON knowledge_files (project_id);
CREATE VIRTUAL TABLE IF NOT EXISTS passages USING fts5(
  text, project_id, file_id UNINDEXED, location UNINDEXED, n UNINDEXED, tokenize = 'porter unicode61 remove_diacritics 2'
);
`;

type PassageRow = { file_id: string; location: string; text: string; n: number };

/** A passage found, with its vector id (`fileId:n`) for the fusion. */
export type Found = Omit<KnowledgeResult, "name"> & { id: string };

const found = (r: PassageRow, score: number): Found => ({ id: `${r.file_id}:${r.n}`, fileId: r.file_id, location: JSON.parse(r.location) as PassageLocation, text: r.text, score });

type StatusRow = { file_id: string; status: KnowledgeStatus; error: string | null; pages: number | null; passages: number; chars: number; updated_at: number };

/** A file's extraction and indexing, as its project's file list shows it. */
export type FileKnowledge = Pick<ProjectFile, "status" | "error" | "pages" | "passages"> & { chars: number; updatedAt: number };

export class KnowledgeIndex {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(TABLES);
  }

  /** The file's text is being extracted (again): its old passages stay searchable until the new ones replace them. */
  processing(fileId: string, projectId: string, now = Date.now()): void {
    this.sql.exec(
      `INSERT INTO knowledge_files (file_id, project_id, status, updated_at) VALUES (?, ?, 'processing', ?)
       ON CONFLICT (file_id) DO UPDATE SET status = 'processing', error = NULL, updated_at = excluded.updated_at`,
      fileId, projectId, now,
    );
  }

  /** The file's passages, replacing any it had; it is ready. */
  indexed(fileId: string, projectId: string, passages: Passage[], pages: number | null, now = Date.now()): void {
    this.sql.exec("DELETE FROM passages WHERE file_id = ?", fileId);
    let chars = 0;
    passages.forEach((p, n) => {
      this.sql.exec("INSERT INTO passages (text, file_id, project_id, location, n) VALUES (?, ?, ?, ?, ?)", p.text, fileId, projectId, JSON.stringify(p.location), n);
      chars += p.text.length;
    });
    this.sql.exec(
      `INSERT INTO knowledge_files (file_id, project_id, status, pages, passages, chars, updated_at) VALUES (?, ?, 'ready', ?, ?, ?, ?)
       ON CONFLICT (file_id) DO UPDATE SET status = 'ready', error = NULL, pages = excluded.pages, passages = excluded.passages, chars = excluded.chars, updated_at = excluded.updated_at`,
      fileId, projectId, pages, passages.length, chars, now,
    );
  }

  failed(fileId: string, projectId: string, error: string, now = Date.now()): void {
    this.sql.exec("DELETE FROM passages WHERE file_id = ?", fileId);
    this.sql.exec(
      `INSERT INTO knowledge_files (file_id, project_id, status, error, updated_at) VALUES (?, ?, 'failed', ?, ?)
       ON CONFLICT (file_id) DO UPDATE SET status = 'failed', error = excluded.error, pages = NULL, passages = 0, chars = 0, updated_at = excluded.updated_at`,
      fileId, projectId, error, now,
    );
  }

  /** Each file's knowledge, by id (a file with none is not in the map). */
  of(fileIds: string[]): Map<string, FileKnowledge> {
    const out = new Map<string, FileKnowledge>();
    if (fileIds.length === 0) return out;
    // One bound value, whatever the count (a statement takes at most 100).
    const rows = this.sql.exec<StatusRow>("SELECT * FROM knowledge_files WHERE file_id IN (SELECT value FROM json_each(?))", JSON.stringify(fileIds)).toArray();
    for (const r of rows) {
      out.set(r.file_id, {
        status: r.status,
        ...(r.error ? { error: r.error } : {}),
        ...(r.pages !== null ? { pages: r.pages } : {}),
        ...(r.status === "ready" ? { passages: r.passages } : {}),
        chars: r.chars,
        updatedAt: r.updated_at,
      });
    }
    return out;
  }

  remove(fileIds: string[]): void {
    for (const id of fileIds) {
      this.sql.exec("DELETE FROM passages WHERE file_id = ?", id);
      this.sql.exec("DELETE FROM knowledge_files WHERE file_id = ?", id);
    }
  }

  /** The characters of text the project's ready files hold. */
  chars(projectId: string): number {
    return this.sql.exec<{ n: number }>("SELECT coalesce(sum(chars), 0) AS n FROM knowledge_files WHERE project_id = ? AND status = 'ready'", projectId).one().n;
  }

  /** Each ready file's text, its passages in order, by file id. */
  texts(projectId: string): Map<string, string> {
    const out = new Map<string, string[]>();
    for (const r of this.sql.exec<{ file_id: string; text: string }>("SELECT file_id, text FROM passages WHERE project_id = ? ORDER BY rowid", projectId)) {
      const list = out.get(r.file_id) ?? [];
      list.push(r.text);
      out.set(r.file_id, list);
    }
    return new Map([...out].map(([id, parts]) => [id, parts.join("\n\n")]));
  }

  /** The best passages of the project for `question` by BM25, best first (no names: the caller has the files). */
  search(projectId: string, question: string, limit: number): Found[] {
    const match = matchQuery(question);
    if (!match) return [];
    const rows = this.sql
      .exec<PassageRow & { score: number }>(
        "SELECT file_id, location, text, n, bm25(passages, 1.0, 0.0) AS score FROM passages WHERE passages MATCH ? ORDER BY score LIMIT ?",
        `project_id : ${quotedId(projectId)} AND text : (${match})`, limit,
      )
      .toArray();
    return rows.map((r) => found(r, -r.score));
  }

  /** Passages by their vector ids (`fileId:n`), in the order given; an id no passage has is left out. */
  byIds(projectId: string, ids: string[], score: (id: string) => number): Found[] {
    const out: Found[] = [];
    for (const id of ids) {
      const at = id.lastIndexOf(":");
      const [r] = this.sql
        .exec<PassageRow>("SELECT file_id, location, text, n FROM passages WHERE file_id = ? AND n = ? AND project_id = ?", id.slice(0, at), Number(id.slice(at + 1)), projectId)
        .toArray();
      if (r) out.push(found(r, score(id)));
    }
    return out;
  }

  /** Each passage's text in order, for the embeddings. */
  textsOf(fileId: string): string[] {
    return this.sql.exec<{ text: string }>("SELECT text FROM passages WHERE file_id = ? ORDER BY n", fileId).toArray().map((r) => r.text);
  }
}

const quotedId = (id: string) => `"${id.replaceAll('"', '""')}"`;
