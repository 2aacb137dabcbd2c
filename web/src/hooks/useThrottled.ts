import { useEffect, useRef, useState } from "react";

/** `value`, updated at most once per `ms` (the latest value always lands). */
export function useThrottled<T>(value: T, ms: number): T {
  const [shown, setShown] = useState(value);
  const last = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(() => {
    const now = Date.now();
    const wait = last.current + ms - now;
    // A pending update carries an older value: it must not land after this one (a timer that fires
    // late, on a busy page, would otherwise leave the text a few words short until the next change).
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
    if (wait <= 0) {
      last.current = now;
      setShown(value);
      return;
    }
    timer.current = setTimeout(() => {
      last.current = Date.now();
      timer.current = null;
      setShown(value);
    }, wait);
  }, [value, ms]);

  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);

  return shown;
}
