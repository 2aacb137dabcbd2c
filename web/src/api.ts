// Typed client for the HTTP half of PROTOCOL.md. Every non-2xx answer becomes an ApiError carrying
// the protocol's error shape `{ error: { code, message, issues? } }`.

import type {
  ApiErrorBody,
  ApiIssue,
  ContextFileInfo,
  Health,
  Message,
  MessageKind,
  PluginInfo,
  Run,
  Task,
  TaskStatus,
  Thread,
  ThreadKind,
  ThreadStatus,
  UsageTotals,
} from "@protocol";

// ---------- Auth token (AUTH_MODE=token) ----------

const TOKEN_KEY = "orchestrator.token";
const unauthorizedListeners = new Set<() => void>();

export function getToken(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(token: string | null): void {
  try {
    if (token) localStorage.setItem(TOKEN_KEY, token);
    else localStorage.removeItem(TOKEN_KEY);
  } catch {
    /* storage unavailable: the token lives for this page only */
  }
}

/** Called whenever the API answers 401: the app shows its sign-in form. */
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

// ---------- Errors ----------

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly issues?: ApiIssue[];
  /** Seconds, from a 429's Retry-After. */
  readonly retryAfter?: number;

  constructor(status: number, code: string, message: string, issues?: ApiIssue[], retryAfter?: number) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.issues = issues;
    this.retryAfter = retryAfter;
  }

  /** A network failure, a 5xx, a 408 or a 429: the same request may succeed later. */
  get transient(): boolean {
    return this.status === 0 || this.status === 408 || this.status === 429 || this.status >= 500;
  }
}

function isErrorBody(value: unknown): value is ApiErrorBody {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as ApiErrorBody).error === "object" &&
    typeof (value as ApiErrorBody).error?.code === "string"
  );
}

// ---------- Core request ----------

type Query = Record<string, string | number | undefined | null>;

function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== "") params.set(key, String(value));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

async function request<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;

  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (err) {
    if ((err as Error)?.name === "AbortError") throw err;
    throw new ApiError(0, "network", "Network error: the server could not be reached.");
  }

  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let json: unknown = undefined;
  if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }

  if (!res.ok) {
    if (res.status === 401) unauthorizedListeners.forEach((l) => l());
    const retryAfterHeader = res.headers.get("Retry-After");
    const retryAfter = retryAfterHeader ? Number(retryAfterHeader) : undefined;
    if (isErrorBody(json)) {
      const { code, message, issues } = json.error;
      throw new ApiError(res.status, code, message, issues, Number.isFinite(retryAfter) ? retryAfter : undefined);
    }
    throw new ApiError(res.status, "http_" + res.status, `Request failed (${res.status})`);
  }
  return json as T;
}

/** Context file paths may hold slashes (`:path+`): encode each segment, keep the slashes. */
function encodePath(path: string): string {
  return path
    .split("/")
    .filter(Boolean)
    .map(encodeURIComponent)
    .join("/");
}

// ---------- Endpoints ----------

export interface ThreadPage {
  threads: Thread[];
  nextCursor?: string;
}

export interface MessagePage {
  messages: Message[];
  lastSeq: number;
}

export interface Metrics {
  runs: Run[];
  totals: UsageTotals;
}

export const api = {
  health: () => request<Health>("GET", "/api/health"),

  listThreads: (query: { status?: ThreadStatus; limit?: number; cursor?: string } = {}) =>
    request<ThreadPage>("GET", withQuery("/api/threads", query)),
  createThread: (body: { name?: string; kind?: ThreadKind; model?: string } = {}) =>
    request<{ thread: Thread }>("POST", "/api/threads", body).then((r) => r.thread),
  getThread: (id: string) => request<{ thread: Thread }>("GET", `/api/threads/${encodeURIComponent(id)}`).then((r) => r.thread),
  patchThread: (id: string, body: { name?: string; model?: string; status?: ThreadStatus }) =>
    request<{ thread: Thread }>("PATCH", `/api/threads/${encodeURIComponent(id)}`, body).then((r) => r.thread),
  deleteThread: (id: string) => request<void>("DELETE", `/api/threads/${encodeURIComponent(id)}`),

  listMessages: (
    threadId: string,
    query: { limit?: number; before?: string; kinds?: MessageKind[] } = {},
    signal?: AbortSignal,
  ) =>
    request<MessagePage>(
      "GET",
      withQuery(`/api/threads/${encodeURIComponent(threadId)}/messages`, {
        limit: query.limit,
        before: query.before,
        kinds: query.kinds?.join(","),
      }),
      undefined,
      signal,
    ),
  postMessage: (threadId: string, content: string, clientMessageId: string) =>
    request<{ message: Message }>("POST", `/api/threads/${encodeURIComponent(threadId)}/messages`, {
      content,
      clientMessageId,
    }).then((r) => r.message),
  stop: (threadId: string) =>
    request<{ stopped: boolean }>("POST", `/api/threads/${encodeURIComponent(threadId)}/stop`),

  listTasks: (query: { threadId?: string; status?: TaskStatus } = {}) =>
    request<{ tasks: Task[] }>("GET", withQuery("/api/tasks", query)).then((r) => r.tasks),
  cancelTask: (id: string) =>
    request<{ task: Task }>("POST", `/api/tasks/${encodeURIComponent(id)}/cancel`).then((r) => r.task),

  metrics: (query: { threadId?: string; since?: number } = {}) =>
    request<Metrics>("GET", withQuery("/api/metrics", query)),

  listPlugins: () => request<{ plugins: PluginInfo[] }>("GET", "/api/plugins").then((r) => r.plugins),
  patchPlugin: (name: string, body: { enabled?: boolean; settings?: unknown }) =>
    request<{ plugin: PluginInfo }>("PATCH", `/api/plugins/${encodeURIComponent(name)}`, body).then((r) => r.plugin),

  listContext: () => request<{ files: ContextFileInfo[] }>("GET", "/api/context").then((r) => r.files),
  /** PROTOCOL.md does not fix the GET answer: accept `{ content }`, `{ file: { content } }` or plain text. */
  getContext: async (path: string): Promise<string> => {
    const r = await request<unknown>("GET", `/api/context/${encodePath(path)}`);
    if (typeof r === "string") return r;
    if (r && typeof r === "object") {
      const o = r as { content?: unknown; file?: { content?: unknown } };
      if (typeof o.content === "string") return o.content;
      if (typeof o.file?.content === "string") return o.file.content;
    }
    return "";
  },
  putContext: (path: string, content: string) => request<unknown>("PUT", `/api/context/${encodePath(path)}`, { content }),
  deleteContext: (path: string) => request<void>("DELETE", `/api/context/${encodePath(path)}`),
};

/** The thread's WebSocket URL, with `since` and (token mode) `token`. */
export function threadSocketUrl(threadId: string, since: number | null): string {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const params = new URLSearchParams();
  if (since !== null) params.set("since", String(since));
  const token = getToken();
  if (token) params.set("token", token);
  const qs = params.toString();
  return `${proto}//${location.host}/api/threads/${encodeURIComponent(threadId)}/ws${qs ? "?" + qs : ""}`;
}

/** Human text for an error of any kind. */
export function errorText(err: unknown): string {
  if (err instanceof ApiError) return err.message || err.code;
  if (err instanceof Error) return err.message;
  return String(err);
}
