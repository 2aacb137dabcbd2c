/**
 * The object has one alarm; its parts (the run queue's watchdog, the mirror's retries) each ask for
 * a time, and the alarm is set to the earliest. When it fires, each part asks again if it still needs to.
 */
export class Alarms {
  constructor(private readonly storage: DurableObjectStorage) {}

  async request(at: number): Promise<void> {
    const current = await this.storage.getAlarm();
    if (current === null || at < current) await this.storage.setAlarm(at);
  }
}
