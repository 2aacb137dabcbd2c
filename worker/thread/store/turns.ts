import type { StoredTurn } from "../../invoker/conversation";
import type { ApiMessage } from "../../invoker/types";
import { marked, type LongText } from "./long-text";

/** The model's transcript: every exchange's turns, whichever branch it is on. */
export class TurnStore {
  constructor(
    private readonly sql: SqlStorage,
    /** Where a turn longer than a row holds goes (a tool's images can make one). */
    private readonly long: LongText,
  ) {}

  /** The turns of these exchanges, in the order given, each exchange's turns in order. */
  of(exchanges: string[]): StoredTurn[] {
    if (exchanges.length === 0) return [];
    // One bound JSON array, not a parameter per exchange: SQLite here binds at most 100.
    return this.sql
      .exec<{ exchange: string; message: string; tokens: number }>(
        `SELECT t.exchange, t.message, t.tokens FROM json_each(?) AS e JOIN turns AS t ON t.exchange = e.value ORDER BY e.key, t.idx`,
        JSON.stringify(exchanges),
      )
      .toArray()
      .map((r) => ({ exchange: r.exchange, message: JSON.parse(this.long.get(r.message)) as ApiMessage, tokens: r.tokens }));
  }

  has(exchange: string): boolean {
    return this.sql.exec("SELECT 1 FROM turns WHERE exchange = ? LIMIT 1", exchange).toArray().length > 0;
  }

  drop(exchange: string): void {
    this.forgetLong(exchange);
    this.sql.exec("DELETE FROM turns WHERE exchange = ?", exchange);
  }

  /** Stores an exchange's turns, replacing any it had (a run that ran again after a restart). */
  put(exchange: string, turns: StoredTurn[]): void {
    this.drop(exchange);
    turns.forEach((t, idx) => {
      const message = this.long.put(`turn/${exchange}/${idx}`, JSON.stringify(t.message));
      this.sql.exec("INSERT INTO turns (exchange, idx, message, tokens) VALUES (?, ?, ?, ?)", exchange, idx, message, t.tokens);
    });
  }

  private forgetLong(exchange: string): void {
    for (const r of this.sql.exec<{ message: string }>(`SELECT message FROM turns WHERE exchange = ? AND ${marked("message")}`, exchange).toArray()) {
      this.long.forget(r.message);
    }
  }
}
