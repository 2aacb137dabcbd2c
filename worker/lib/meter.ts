// What an object costs, counted as it goes: the rows its SQLite statements read and write (what
// Durable Objects bill), its calls to other objects, its R2 operations, and the rows and bytes it
// writes to D1. Each object keeps one Meter for its life; a run reads the difference across itself.

/** The counts, as a run's log line and the bench report them. */
export interface MeterCounts {
  rowsRead: number;
  rowsWritten: number;
  /** Rows the owner's object read and wrote for what this object reported to it (its D1 writes count with this one's). */
  ownerRowsRead: number;
  ownerRowsWritten: number;
  /** RPCs to other objects. */
  rpcs: number;
  /** R2 operations, and of them those R2 bills as writes (class A: put, delete, list, multipart). */
  r2: number;
  r2Writes: number;
  d1Rows: number;
  d1Bytes: number;
}

export const noCounts = (): MeterCounts => ({ rowsRead: 0, rowsWritten: 0, ownerRowsRead: 0, ownerRowsWritten: 0, rpcs: 0, r2: 0, r2Writes: 0, d1Rows: 0, d1Bytes: 0 });

const R2_WRITES = new Set(["put", "delete", "list", "createMultipartUpload", "resumeMultipartUpload"]);

/** Cursors held before they are counted, so an object that is never read holds few. */
const MAX_HELD = 256;

/** What a writer asked of D1 (db/client.ts counts it): round trips, rows written (indexes included), bytes bound. */
export interface D1Counts {
  roundTrips: number;
  rowsWritten: number;
  bytes: number;
}

export class Meter {
  private readonly counts = noCounts();

  /** What the owner's object wrote to D1 for this one's reports. */
  private readonly ownerD1 = { rowsWritten: 0, bytes: 0 };

  /** `d1`: the object's D1 counts, read with the rest. */
  constructor(private readonly d1?: Omit<D1Counts, "roundTrips">) {}

  /** Cursors of statements not yet counted: a cursor's figures grow as it is read (most are read at once). */
  private cursors: SqlStorageCursor<Record<string, SqlStorageValue>>[] = [];

  /** `storage`, each SQL statement of which is counted (for the object's own store, and Drizzle). */
  storage(storage: DurableObjectStorage): DurableObjectStorage {
    const sql = new Proxy(storage.sql, {
      get: (target, name) => {
        if (name === "exec") {
          return (query: string, ...bindings: unknown[]) => {
            const cursor = target.exec(query, ...bindings);
            if (this.cursors.push(cursor) > MAX_HELD) this.read();
            return cursor;
          };
        }
        return bound(target, name);
      },
    });
    return new Proxy(storage, { get: (target, name) => (name === "sql" ? sql : bound(target, name)) });
  }

  /**
   * Counts calls out: each call of a method of `target` (an object's stub, a bucket) is one more of
   * `kind`. A stub answers any name with a method, so every name but `then` is taken for one.
   */
  calls<T extends object>(target: T, kind: "rpcs" | "r2"): T {
    return new Proxy(target, {
      get: (t, name) => {
        if (name === "then" || typeof name === "symbol") return Reflect.get(t, name, t);
        return (...args: unknown[]) => {
          this.counts[kind]++;
          if (kind === "r2" && R2_WRITES.has(name)) this.counts.r2Writes++;
          return Reflect.apply(Reflect.get(t, name, t) as (...a: unknown[]) => unknown, t, args);
        };
      },
    });
  }

  /** What the owner's object did for a call of this one (its answer says): its rows, and its D1 writes. */
  owner(cost: MeterCounts): void {
    this.counts.ownerRowsRead += cost.rowsRead;
    this.counts.ownerRowsWritten += cost.rowsWritten;
    this.ownerD1.rowsWritten += cost.d1Rows;
    this.ownerD1.bytes += cost.d1Bytes;
  }

  /** Everything counted since the object started. */
  read(): MeterCounts {
    for (const cursor of this.cursors) {
      this.counts.rowsRead += cursor.rowsRead;
      this.counts.rowsWritten += cursor.rowsWritten;
    }
    this.cursors = [];
    const d1 = this.d1 ?? { rowsWritten: 0, bytes: 0 };
    return { ...this.counts, d1Rows: d1.rowsWritten + this.ownerD1.rowsWritten, d1Bytes: d1.bytes + this.ownerD1.bytes };
  }
}

/** What `later` counted past `earlier`. */
export function since(later: MeterCounts, earlier: MeterCounts): MeterCounts {
  const out = noCounts();
  for (const key of Object.keys(out) as (keyof MeterCounts)[]) out[key] = later[key] - earlier[key];
  return out;
}

function bound(target: object, name: string | symbol): unknown {
  const value = Reflect.get(target, name, target);
  return typeof value === "function" ? value.bind(target) : value;
}
