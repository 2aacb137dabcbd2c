// Ids are `<prefix>_<time><random>`: sortable by creation time, unguessable enough to be public.
const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

const TIME_CHARS = 9;
const RANDOM_CHARS = 10;

export function newId(prefix: string, now = Date.now()): string {
  const bytes = crypto.getRandomValues(new Uint8Array(RANDOM_CHARS));
  let rand = "";
  for (const b of bytes) rand += ALPHABET[b % 36];
  return `${prefix}_${now.toString(36).padStart(TIME_CHARS, "0")}${rand}`;
}

/** Whether `value` is an id newId(prefix) could have made. */
export function isId(prefix: string, value: string): boolean {
  const body = value.startsWith(`${prefix}_`) ? value.slice(prefix.length + 1) : "";
  return body.length === TIME_CHARS + RANDOM_CHARS && [...body].every((ch) => ALPHABET.includes(ch));
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
