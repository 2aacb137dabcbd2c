// Whose object this is, and whether its rows came from D1 yet. A user's object is reached by its user's
// id (idFromName), which is its name (ctx.id.name): no call names a user, so none can reach another's
// data through it. The name is kept in `meta`, for an instance reached by its id alone (a share link).
// The first time the object opens for its user, their rows are imported from D1, once, where the
// deployment has data from before the objects (LEGACY_IMPORT; else nothing is read); the object answers
// nothing before (UserRoom opens in blockConcurrencyWhile), and a failed import throws, so the next
// call tries again.
import type { UserStore } from ".";

export class FirstTouch {
  private userId: string | null;

  constructor(
    private readonly store: UserStore,
    name: string | undefined,
  ) {
    this.userId = name ?? store.meta("user");
  }

  /** The user this object belongs to ("" for an object that no user's id has reached). */
  get owner(): string {
    return this.userId ?? "";
  }

  /** Imports the user's rows once (`importRows` reads them from D1 into the object, and counts them). */
  async open(importRows: (userId: string) => Promise<number>): Promise<void> {
    if (this.userId === null || this.store.meta("imported") !== null) return;
    const rows = await importRows(this.userId);
    this.store.setMeta("user", this.userId);
    this.store.setMeta("imported", String(rows));
  }
}
