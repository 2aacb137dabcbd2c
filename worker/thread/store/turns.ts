import type { StoredTurn } from "../../invoker/conversation";
import type { ApiMessage } from "../../invoker/types";

/** The model's transcript: every exchange's turns, whichever branch it is on. */
export class TurnStore {
  constructor(private readonly sql: SqlStorage) {}

  /** The turns of these exchanges, in the order given, each exchange's turns in order. */
  of(exchanges: string[]): StoredTurn[] {
    if (exchanges.length === 0) return [];
    const order = new Map(exchanges.map((id, i) => [id, i]));
    const rows: { exchange: string; idx: number; message: string; tokens: number }[] = [];
    // In chunks: SQLite binds at most a few hundred parameters per statement here.
    for (let i = 0; i < exchanges.length; i += 200) {
      const chunk = exchanges.slice(i, i + 200);
      rows.push(
        ...this.sql
          .exec<{ exchange: string; idx: number; message: string; tokens: number }>(
            `SELECT exchange, idx, message, tokens FROM turns WHERE exchange IN (${chunk.map(() => "?").join(",")})`,
            ...chunk,
          )
          .toArray(),
      );
    }
    rows.sort((a, b) => order.get(a.exchange)! - order.get(b.exchange)! || a.idx - b.idx);
    return rows.map((r) => ({ exchange: r.exchange, message: JSON.parse(r.message) as ApiMessage, tokens: r.tokens }));
  }

  has(exchange: string): boolean {
    return this.sql.exec("SELECT 1 FROM turns WHERE exchange = ? LIMIT 1", exchange).toArray().length > 0;
  }

  drop(exchange: string): void {
    this.sql.exec("DELETE FROM turns WHERE exchange = ?", exchange);
  }

  /** Stores an exchange's turns, replacing any it had (a run that ran again after a restart). */
  put(exchange: string, turns: StoredTurn[]): void {
    this.sql.exec("DELETE FROM turns WHERE exchange = ?", exchange);
    turns.forEach((t, idx) => {
      this.sql.exec("INSERT INTO turns (exchange, idx, message, tokens) VALUES (?, ?, ?, ?)", exchange, idx, JSON.stringify(t.message), t.tokens);
    });
  }
}
