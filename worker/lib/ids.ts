// Ids are `<prefix>_<time><random>`: sortable by creation time, unguessable enough to be public.
const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

export function newId(prefix: string, now = Date.now()): string {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  let rand = "";
  for (const b of bytes) rand += ALPHABET[b % 36];
  return `${prefix}_${now.toString(36).padStart(9, "0")}${rand}`;
}

/** Timestamps that never repeat or go backwards within one writer, so ordering by time is stable. */
export class MonotonicClock {
  private last = 0;
  now(): number {
    const t = Date.now();
    this.last = t > this.last ? t : this.last + 1;
    return this.last;
  }
}
