import { QueryClient } from "@tanstack/react-query";
import { ApiError } from "../api";

/** Retry what may succeed a second time (no answer, 5xx, 429); any other error is the server's answer. */
function retry(failures: number, error: unknown): boolean {
  return failures < 2 && (!(error instanceof ApiError) || error.transient);
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      // Socket events keep the open thread's data current; a short staleTime only spares the
      // duplicate fetches of components that mount together.
      queries: { retry, staleTime: 5_000 },
      mutations: { retry: false },
    },
  });
}
