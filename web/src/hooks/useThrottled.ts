import { useEffect, useRef, useState } from "react";

/** `value`, updated at most once per `ms` (the latest value always lands). */
export function useThrottled<T>(value: T, ms: number): T {
  const [shown, setShown] = useState(value);
  const last = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(() => {
    const now = Date.now();
    const wait = last.current + ms - now;
    if (wait <= 0) {
      last.current = now;
      setShown(value);
      return;
    }
    if (timer.current) clearTimeout(timer.current);
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
