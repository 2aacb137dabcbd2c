/**
 * The object has one alarm; its parts (the run queue's watchdog, the mirror's retries) each ask for
 * a time, and the alarm is set to the earliest. The time set is remembered, so asking again for a
 * later time costs nothing (no storage operation on a post's way). When it fires, each part asks again
 * if it still needs to.
 */
export class Alarms {
  private scheduled: number | null | undefined;

  constructor(private readonly storage: DurableObjectStorage) {}

  async request(at: number): Promise<void> {
    this.scheduled ??= await this.storage.getAlarm();
    if (this.scheduled !== null && this.scheduled <= at) return;
    this.scheduled = at;
    await this.storage.setAlarm(at);
  }

  /** The alarm fired (and is gone) or was deleted. */
  cleared(): void {
    this.scheduled = null;
  }
}
