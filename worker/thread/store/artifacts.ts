// A thread's artifacts, in its object's SQLite: each one's versions, each tied to the exchange (the
// user message) whose run wrote it. A branch sees the versions written on its own path only, so
// regenerating a reply leaves the other branch's versions where they were.
import { MAX_ARTIFACT_BYTES, MAX_ARTIFACTS_PER_THREAD, type Artifact, type ArtifactInfo, type ArtifactType } from "../../../protocol";
import { newId } from "../../lib/ids";

export interface NewArtifact {
  title: string;
  type: ArtifactType;
  language?: string | null;
  content: string;
}

export type ArtifactEdit = { content: string } | { old_str: string; new_str: string };

export type ArtifactResult = { ok: true; artifact: ArtifactInfo } | { ok: false; reason: string };

// The messages the current branch shows: its exchanges (the input messages from the head to the root),
// and a message that is no exchange where it hangs off one of them or precedes them all (a research's
// card, whose report is an artifact of its own).
const PATH = `WITH RECURSIVE path(id) AS (
  SELECT id FROM messages WHERE id = ?
  UNION ALL SELECT m.parent_id FROM messages m JOIN path p ON m.id = p.id WHERE m.parent_id IS NOT NULL
), seen(id) AS (
  SELECT id FROM path
  UNION SELECT id FROM messages WHERE input = 0 AND (parent_id IS NULL OR parent_id IN (SELECT id FROM path))
)`;

type InfoRow = { id: string; title: string; type: ArtifactType; language: string | null; version: number; exchange: string; created_at: number };

const info = (r: InfoRow): ArtifactInfo => ({
  id: r.id,
  title: r.title,
  type: r.type,
  language: r.language,
  version: r.version,
  messageId: r.exchange,
  updatedAt: r.created_at,
});

const bytes = (s: string) => new TextEncoder().encode(s).length;
const tooLarge = (n: number) => `An artifact version is at most ${MAX_ARTIFACT_BYTES / (1024 * 1024)} MiB; this one is ${(n / (1024 * 1024)).toFixed(2)} MiB`;

export class ArtifactStore {
  constructor(private readonly sql: SqlStorage) {}

  /** A new artifact, version 1, written in the exchange `exchange`. */
  create(a: NewArtifact, exchange: string, runId: string, now: number): ArtifactResult {
    const size = bytes(a.content);
    if (size > MAX_ARTIFACT_BYTES) return { ok: false, reason: tooLarge(size) };
    const { n } = this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM artifacts").one();
    if (n >= MAX_ARTIFACTS_PER_THREAD) return { ok: false, reason: `This thread already holds ${MAX_ARTIFACTS_PER_THREAD} artifacts; update one instead` };
    const id = newId("art", now);
    this.sql.exec("INSERT INTO artifacts (id, title, type, language, created_at) VALUES (?, ?, ?, ?, ?)", id, a.title, a.type, a.language ?? null, now);
    this.sql.exec("INSERT INTO artifact_versions VALUES (?, 1, ?, ?, ?, ?)", id, a.content, exchange, runId, now);
    return { ok: true, artifact: { id, title: a.title, type: a.type, language: a.language ?? null, version: 1, messageId: exchange, updatedAt: now } };
  }

  /**
   * A new version of an artifact the exchange's branch sees: the whole content, or one exact
   * replacement of text that occurs once in its latest version there.
   */
  update(id: string, edit: ArtifactEdit, exchange: string, runId: string, now: number): ArtifactResult {
    const latest = this.latest(exchange, id);
    if (!latest) return { ok: false, reason: `No artifact ${JSON.stringify(id)} on this branch (the list in your prompt has their ids)` };
    let content: string;
    if ("content" in edit) content = edit.content;
    else {
      const at = latest.content.indexOf(edit.old_str);
      if (edit.old_str === "" || at === -1) return { ok: false, reason: "old_str does not occur in the artifact's latest version; copy it exactly, or send the whole content" };
      if (latest.content.indexOf(edit.old_str, at + 1) !== -1) return { ok: false, reason: "old_str occurs more than once; give more of the text around it so it matches once" };
      content = latest.content.slice(0, at) + edit.new_str + latest.content.slice(at + edit.old_str.length);
    }
    const size = bytes(content);
    if (size > MAX_ARTIFACT_BYTES) return { ok: false, reason: tooLarge(size) };
    const { v } = this.sql.exec<{ v: number }>("SELECT max(version) AS v FROM artifact_versions WHERE artifact_id = ?", id).one();
    this.sql.exec("INSERT INTO artifact_versions VALUES (?, ?, ?, ?, ?, ?)", id, v + 1, content, exchange, runId, now);
    return { ok: true, artifact: { ...info({ ...latest, version: v + 1, exchange, created_at: now }) } };
  }

  /** The artifacts the branch that ends at `head` sees, at their latest version there, newest first. */
  list(head: string | null): ArtifactInfo[] {
    return this.sql
      .exec<InfoRow>(
        `${PATH}
         SELECT a.id, a.title, a.type, a.language, v.version, v.exchange, v.created_at
         FROM artifacts a JOIN artifact_versions v ON v.artifact_id = a.id
         WHERE v.version = (SELECT max(version) FROM artifact_versions w WHERE w.artifact_id = a.id AND w.exchange IN (SELECT id FROM seen))
         ORDER BY v.created_at DESC, a.id`,
        head,
      )
      .toArray()
      .map(info);
  }

  /** One artifact as the branch sees it: a version of it there (the latest by default), with its versions. */
  get(head: string | null, id: string, version?: number): Artifact | null {
    const versions = this.sql
      .exec<InfoRow & { content: string }>(
        `${PATH}
         SELECT a.id, a.title, a.type, a.language, v.version, v.exchange, v.created_at, v.content
         FROM artifacts a JOIN artifact_versions v ON v.artifact_id = a.id
         WHERE a.id = ? AND v.exchange IN (SELECT id FROM seen) ORDER BY v.version`,
        head,
        id,
      )
      .toArray();
    const chosen = version === undefined ? versions.at(-1) : versions.find((v) => v.version === version);
    if (!chosen) return null;
    return { ...info(chosen), content: chosen.content, versions: versions.map((v) => ({ version: v.version, createdAt: v.created_at })) };
  }

  private latest(head: string, id: string): (InfoRow & { content: string }) | null {
    const a = this.get(head, id);
    return a ? { id: a.id, title: a.title, type: a.type, language: a.language, version: a.version, exchange: a.messageId, created_at: a.updatedAt, content: a.content } : null;
  }
}
