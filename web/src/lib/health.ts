// /api/health, fetched once per page (and again on demand), shared by the banner and the model selector.

import { useSyncExternalStore } from "react";
import { request } from "../api";
import type { Health } from "@protocol";

let health: Health | null = null;
let started = false;
const listeners = new Set<() => void>();

export function loadHealth(): void {
  started = true;
  request("GET /api/health")
    .then((h) => {
      health = h;
      listeners.forEach((l) => l());
    })
    .catch(() => {
      /* the banner simply stays hidden */
    });
}

export function useHealth(): Health | null {
  if (!started) loadHealth();
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => health,
  );
}
