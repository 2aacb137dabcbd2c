// A user's API keys (PROTOCOL.md, "API keys"): kept as the SHA-256 of their secret, never the secret.
// The secret is 190 random bits, then the id of the object that holds it, so a request with a key leads
// to its user's object without a table shared across users (and with no D1 on its way); the object
// then checks the hash, so a revoked key is refused at once.
import { API_KEY_PREFIX_CHARS, API_KEY_SECRET_START, type ApiKey } from "../../../protocol";
import { newId } from "../../lib/ids";
import { sha256Hex } from "../../lib/sha256";

/** The last use is written at most once a minute: a key's every request would be a write otherwise. */
const LAST_USED_GRAIN_MS = 60_000;
const RANDOM_CHARS = 32;
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const SECRET = /^eo_[0-9A-Za-z]{32}_([0-9a-f]{64})$/;

type Row = { id: string; name: string; prefix: string; created_at: number; last_used_at: number | null };

const publicKey = (r: Row): ApiKey => ({ id: r.id, name: r.name, prefix: r.prefix, createdAt: r.created_at, lastUsedAt: r.last_used_at });

/** The id (hex) of the user's object a secret names, or null for a string that is no key of ours. */
export function holderOfSecret(secret: string): string | null {
  return secret.match(SECRET)?.[1] ?? null;
}

export const hashSecret = (secret: string): Promise<string> => sha256Hex(secret);

function newSecret(holderId: string): string {
  // 62^32: 190 bits. Rejection sampling keeps every character equally likely.
  let random = "";
  while (random.length < RANDOM_CHARS) {
    for (const b of crypto.getRandomValues(new Uint8Array(RANDOM_CHARS))) if (b < 248 && random.length < RANDOM_CHARS) random += ALPHABET[b % 62];
  }
  return `${API_KEY_SECRET_START}${random}_${holderId}`;
}

export class ApiKeys {
  constructor(
    private readonly sql: SqlStorage,
    /** This object's id (hex): every secret made here names it. */
    private readonly holderId: string,
  ) {
    sql.exec(`CREATE TABLE IF NOT EXISTS api_keys (
      id TEXT PRIMARY KEY, name TEXT NOT NULL, prefix TEXT NOT NULL, hash TEXT NOT NULL UNIQUE,
      created_at INTEGER NOT NULL, last_used_at INTEGER
    )`);
  }

  /** A new key and its secret (which only this answer holds); null past `max` live keys. */
  async create(name: string, max: number, now = Date.now()): Promise<{ key: ApiKey; secret: string } | null> {
    if (this.count() >= max) return null;
    const secret = newSecret(this.holderId);
    const row: Row = { id: newId("key", now), name, prefix: secret.slice(0, API_KEY_PREFIX_CHARS), created_at: now, last_used_at: null };
    const hash = await hashSecret(secret);
    // The count again: another create may have run during the hash.
    if (this.count() >= max) return null;
    this.sql.exec("INSERT INTO api_keys (id, name, prefix, hash, created_at) VALUES (?, ?, ?, ?, ?)", row.id, name, row.prefix, hash, now);
    return { key: publicKey(row), secret };
  }

  list(): ApiKey[] {
    return this.sql.exec<Row>("SELECT id, name, prefix, created_at, last_used_at FROM api_keys ORDER BY created_at DESC, id DESC").toArray().map(publicKey);
  }

  /** Revokes a key: its row goes, so its hash matches nothing from now on. False: no such key. */
  revoke(id: string): boolean {
    return this.sql.exec("DELETE FROM api_keys WHERE id = ?", id).rowsWritten > 0;
  }

  /** The key whose secret hashes to `hash`, its use noted (to the minute); null: none (or revoked). */
  use(hash: string, now = Date.now()): ApiKey | null {
    const row = this.sql.exec<Row>("SELECT id, name, prefix, created_at, last_used_at FROM api_keys WHERE hash = ?", hash).toArray()[0];
    if (!row) return null;
    if (row.last_used_at === null || now - row.last_used_at >= LAST_USED_GRAIN_MS) {
      this.sql.exec("UPDATE api_keys SET last_used_at = ? WHERE id = ?", now, row.id);
      row.last_used_at = now;
    }
    return publicKey(row);
  }

  private count(): number {
    return this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM api_keys").one().n;
  }
}
