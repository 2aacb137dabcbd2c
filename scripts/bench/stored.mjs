// What is kept, read from the app's own SQLite files (wrangler dev's state) with SQLite's dbstat:
//   d1Rows     the bytes a row of D1's directory and of its usage roll-up takes, its indexes included:
//              2,000 copies of the app's own rows (new keys) added to a copy of its D1 file
//   objects    the bytes the objects' tables hold (their rows' payload), by class, to set against the
//              messages that made them; the replay's frames are left out, kept only while a client
//              may still ask for them (a few minutes: thread/store/run-log.ts)
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";

const COPIES = 2_000;

/** The .sqlite files under `dir`, at any depth. */
function sqliteFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sqliteFiles(path);
    return name.endsWith(".sqlite") ? [path] : [];
  });
}

/** A copy of a database file (its write-ahead log with it), opened; removed by `close`. */
function openCopy(path) {
  const dir = mkdtempSync(join(tmpdir(), "stored-"));
  const copy = join(dir, "db.sqlite");
  copyFileSync(path, copy);
  if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`);
  const db = new DatabaseSync(copy);
  return { db, close: () => (db.close(), rmSync(dir, { recursive: true, force: true })) };
}

const pages = (db, names) => db.prepare(`SELECT coalesce(sum(pgsize), 0) AS n FROM dbstat WHERE name IN (${names.map(() => "?").join(",")})`).get(...names).n;
const indexesOf = (db, table) => db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?").all(table).map((r) => r.name);

/** Bytes per row of `table` (indexes included): COPIES copies of one of its rows, keys changed by `rekey`. */
function bytesPerRow(db, table, rekey) {
  const row = db.prepare(`SELECT * FROM ${table} LIMIT 1`).get();
  if (!row) return null;
  const names = [table, ...indexesOf(db, table)];
  const before = pages(db, names);
  const columns = Object.keys(row);
  const insert = db.prepare(`INSERT INTO ${table} (${columns.join(",")}) VALUES (${columns.map(() => "?").join(",")})`);
  db.exec("BEGIN");
  for (let i = 0; i < COPIES; i++) insert.run(...columns.map((c) => rekey(row, i)[c]));
  db.exec("COMMIT");
  return (pages(db, names) - before) / COPIES;
}

/** D1's directory row and usage roll-up row, as stored. */
export function d1RowBytes(stateDir) {
  const [file] = sqliteFiles(join(stateDir, "v3", "d1"));
  if (!file) return null;
  const { db, close } = openCopy(file);
  try {
    return {
      directoryRow: bytesPerRow(db, "thread_directory", (r, i) => ({ ...r, id: `${r.id.slice(0, -6)}${String(i).padStart(6, "0")}` })),
      usageDayRow: bytesPerRow(db, "usage_days", (r, i) => ({ ...r, owner_id: `user-${String(i).padStart(6, "0")}-${r.owner_id}`.slice(0, Math.max(r.owner_id.length, 12)) + i })),
    };
  } finally {
    close();
  }
}

/** The payload bytes the objects of each class hold now ("ThreadRoom", "UserRoom"). */
export function objectBytes(stateDir) {
  const out = {};
  for (const file of sqliteFiles(join(stateDir, "v3", "do"))) {
    const kind = file.includes("ThreadRoom") ? "thread" : file.includes("UserRoom") ? "user" : null;
    if (!kind) continue;
    const { db, close } = openCopy(file);
    try {
      out[kind] = (out[kind] ?? 0) + db.prepare("SELECT coalesce(sum(payload), 0) AS n FROM dbstat WHERE name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name <> 'replay'").get().n;
    } finally {
      close();
    }
  }
  return out;
}
