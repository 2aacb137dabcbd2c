import { useCallback, useEffect, useState } from "react";
import { errorText } from "../api";

export interface AsyncState<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
  setData: (update: (current: T | undefined) => T | undefined) => void;
}

/** Load something once (and again on reload), optionally polling while the tab is visible. */
export function useAsync<T>(load: () => Promise<T>, deps: unknown[], pollMs?: number): AsyncState<T> {
  const [data, setDataState] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [key, setKey] = useState(0);

  useEffect(() => {
    let cancelled = false;
    const run = async (quiet: boolean) => {
      if (!quiet) setLoading(true);
      try {
        const result = await load();
        if (!cancelled) {
          setDataState(result);
          setError(undefined);
        }
      } catch (err) {
        if (!cancelled) setError(errorText(err));
      } finally {
        if (!cancelled) setLoading(false);
      }
    };
    void run(false);
    const timer = pollMs
      ? setInterval(() => document.visibilityState === "visible" && void run(true), pollMs)
      : undefined;
    return () => {
      cancelled = true;
      if (timer) clearInterval(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, key]);

  const reload = useCallback(() => setKey((k) => k + 1), []);
  const setData = useCallback((update: (current: T | undefined) => T | undefined) => setDataState(update), []);
  return { data, error, loading, reload, setData };
}
