// One-use tickets for a thread's socket: the web app asks for one (authenticated as usual) and opens
// the socket with it, so no long-lived token appears in a URL, where request logs would keep it.
import { newId } from "../../lib/ids";

const TICKET_TTL_MS = 60_000;

export interface Redeemed {
  userId: string;
  /** When the credential that asked for the ticket stops being valid (null: it does not expire). */
  credentialExpiresAt: number | null;
}

export class Tickets {
  constructor(private readonly sql: SqlStorage) {}

  issue(userId: string, credentialExpiresAt: number | null, now = Date.now()): { ticket: string; expiresAt: number } {
    this.sql.exec("DELETE FROM tickets WHERE expires_at < ?", now);
    const ticket = `${newId("tkt", now)}${crypto.randomUUID().replace(/-/g, "")}`;
    const expiresAt = now + TICKET_TTL_MS;
    this.sql.exec("INSERT INTO tickets (ticket, user_id, expires_at, credential_expires_at) VALUES (?, ?, ?, ?)", ticket, userId, expiresAt, credentialExpiresAt);
    return { ticket, expiresAt };
  }

  /** The ticket's user, once: a ticket that was used, or is older than a minute, is refused. */
  redeem(ticket: string, now = Date.now()): Redeemed | null {
    const row = this.sql
      .exec<{ user_id: string; expires_at: number; credential_expires_at: number | null }>("SELECT * FROM tickets WHERE ticket = ?", ticket)
      .toArray()[0];
    this.sql.exec("DELETE FROM tickets WHERE ticket = ?", ticket);
    if (!row || row.expires_at < now) return null;
    return { userId: row.user_id, credentialExpiresAt: row.credential_expires_at };
  }
}
