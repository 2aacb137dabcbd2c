// The HTTP half of PROTOCOL.md as one route map: what each route takes and answers. The Worker's
// routes answer through `reply(c, route, body)` (worker/http/reply.ts) and the web app's client is
// typed from the same map, so both sides compile against one declaration.
import type { Artifact, ArtifactInfo, ContextFile, ContextFileInfo, KnowledgeResult, ModelInfo, PluginInfo, ProducedFile, Project, ProjectFile, Run, Schedule, SearchResult, Share, SharedThread, Task, UsageTotals } from "./resources";
import type { Attachment, CREATED_THREAD_KINDS, Message, MessageKind, TaskStatus, Thread, ThreadStatus } from "./shapes";
import type { McpServer, McpServerBody, McpServerPatch, PendingApproval } from "./mcp";
import type { ApiKey } from "./api-keys";
import type { Research, StartResearchBody } from "./research";
import type { OAuthConsent, OAuthDecision, OAuthRedirect } from "./oauth";

export interface Health {
  ok: true;
  version: string;
  model: { provider: "anthropic" | "offline"; default: string };
  auth: { mode: "none" | "token" | "access"; userId: string; admin: boolean };
}

export interface PostMessageBody {
  content: string;
  clientMessageId?: string;
  attachments?: string[];
}

export interface UsageLimits {
  /** The caller's spend today (UTC) and the daily cap, in US dollars (null: no cap). */
  spentTodayUsd: number;
  dailyCapUsd: number | null;
}

/** One user's usage on one UTC day (GET /api/admin/usage, for ADMIN_USERS: the deployment's record, from D1). */
export interface UserDayUsage extends UsageTotals {
  userId: string;
  /** YYYY-MM-DD, UTC. */
  day: string;
}

/** Route → { body?, query?, response }. Paths use :params as the Worker declares them. */
export interface Api {
  "GET /api/health": { response: Health };
  "GET /api/models": { response: { models: ModelInfo[]; default: string } };
  "POST /api/threads": { body: { name?: string; kind?: (typeof CREATED_THREAD_KINDS)[number]; model?: string; timezone?: string; projectId?: string }; response: { thread: Thread } };
  "GET /api/threads": {
    query: { status?: ThreadStatus; limit?: number; cursor?: string };
    response: { threads: Thread[]; nextCursor?: string };
  };
  "GET /api/threads/:id": { response: { thread: Thread } };
  "PATCH /api/threads/:id": {
    body: { name?: string; model?: string; status?: ThreadStatus; instructions?: string; timezone?: string; projectId?: string | null; mcpOff?: string[]; codeExecution?: boolean };
    response: { thread: Thread };
  };
  "DELETE /api/threads/:id": { response: null };
  "GET /api/threads/:id/messages": {
    query: { limit?: number; before?: string; kinds?: string };
    response: { messages: Message[]; lastSeq: number };
  };
  "POST /api/threads/:id/messages": { body: PostMessageBody; response: { message: Message } };
  "POST /api/threads/:id/messages/:messageId/edit": { body: PostMessageBody; response: { message: Message } };
  "POST /api/threads/:id/messages/:messageId/regenerate": { body: { clientMessageId?: string }; response: { message: Message } };
  "PUT /api/threads/:id/head": { body: { messageId: string }; response: { thread: Thread } };
  "POST /api/threads/:id/attachments": { query: { name?: string }; response: { attachment: Attachment } };
  /** The JSON format's shape; the Markdown one is text. Both come as a download. */
  "GET /api/threads/:id/export": { query: { format?: "markdown" | "json" }; response: { thread: Thread; messages: Message[] } };
  /** The file's bytes, with its Content-Type. */
  "GET /api/threads/:id/attachments/:attachmentId": { response: Blob };
  "POST /api/threads/:id/stop": { response: { stopped: boolean } };
  "POST /api/chat": { body: PostMessageBody & { threadId: string }; response: { message: Message } };
  "POST /api/prewarm": { body: { threadId: string }; response: null };
  "POST /api/ws-ticket": { body: { threadId: string }; response: { ticket: string; expiresAt: number } };
  "GET /api/search": { query: { q: string; limit?: number; projectId?: string }; response: { results: SearchResult[] } };
  "GET /api/tasks": { query: { threadId?: string; status?: TaskStatus }; response: { tasks: Task[] } };
  "POST /api/tasks/:id/cancel": { response: { task: Task } };
  "GET /api/metrics": {
    query: { threadId?: string; since?: number; limit?: number };
    response: { runs: Run[]; totals: UsageTotals; limits: UsageLimits };
  };
  "GET /api/admin/usage": { query: { since?: number; until?: number; limit?: number; cursor?: string }; response: { usage: UserDayUsage[]; nextCursor?: string } };
  "GET /api/plugins": { response: { plugins: PluginInfo[] } };
  "PATCH /api/plugins/:name": { body: { enabled?: boolean; settings?: Record<string, unknown> }; response: { plugin: PluginInfo } };
  "GET /api/context": { response: { files: ContextFileInfo[]; cut?: string[] } };
  "GET /api/context/:path": { response: { file: ContextFile } };
  "PUT /api/context/:path": { body: { content: string }; response: { file: ContextFile } };
  "DELETE /api/context/:path": { response: null };
  "POST /api/threads/:id/schedules": { body: ScheduleBody & { prompt: string }; response: { schedule: Schedule } };
  "GET /api/threads/:id/schedules": { response: { schedules: Schedule[] } };
  "GET /api/schedules": { response: { schedules: Schedule[] } };
  "PATCH /api/schedules/:scheduleId": { body: ScheduleBody; response: { schedule: Schedule } };
  "DELETE /api/schedules/:scheduleId": { response: null };
  "POST /api/projects": { body: { name: string; instructions?: string }; response: { project: Project } };
  "GET /api/projects": { response: { projects: Project[] } };
  "GET /api/projects/:projectId": { response: { project: Project } };
  "PATCH /api/projects/:projectId": { body: { name?: string; instructions?: string }; response: { project: Project } };
  "DELETE /api/projects/:projectId": { response: null };
  "POST /api/projects/:projectId/files": { query: { name?: string }; response: { file: ProjectFile } };
  "GET /api/projects/:projectId/files": { response: { files: ProjectFile[] } };
  "GET /api/projects/:projectId/search": { query: { q: string; limit?: string }; response: { results: KnowledgeResult[] } };
  "POST /api/projects/:projectId/files/:fileId/reprocess": { response: { file: ProjectFile } };
  "GET /api/projects/:projectId/files/:fileId": { response: Blob };
  "DELETE /api/projects/:projectId/files/:fileId": { response: null };
  /** `codeFiles`: the copy holds the files the branch's code wrote too (the owner's choice; default not). */
  "POST /api/threads/:id/shares": { body: { codeFiles?: boolean }; response: { share: Share } };
  "GET /api/shares": { response: { shares: Share[] } };
  "DELETE /api/shares/:shareId": { response: null };
  "GET /api/shared/:shareId": { response: SharedThread };
  "GET /api/shared/:shareId/files/:fileId": { response: Blob };
  "GET /api/threads/:id/artifacts": { response: { artifacts: ArtifactInfo[] } };
  "GET /api/threads/:id/files": { response: { files: ProducedFile[] } };
  "GET /api/threads/:id/files/:fileId": { response: Blob };
  "GET /api/threads/:id/artifacts/:artifactId": { query: { version?: number }; response: { artifact: Artifact } };
  "POST /api/mcp/servers": { body: McpServerBody; response: { server: McpServer } };
  "GET /api/mcp/servers": { response: { servers: McpServer[] } };
  "PATCH /api/mcp/servers/:serverId": { body: McpServerPatch; response: { server: McpServer } };
  "DELETE /api/mcp/servers/:serverId": { response: null };
  "POST /api/threads/:id/research": { body: StartResearchBody; response: { research: Research } };
  "POST /api/threads/:id/research/:researchId/plan": { body: { subquestions: string[] }; response: { research: Research } };
  "POST /api/threads/:id/research/:researchId/stop": { response: { research: Research } };
  "GET /api/threads/:id/research/:researchId": { response: { research: Research } };
  "POST /api/keys": { body: { name: string }; response: { key: ApiKey; secret: string } };
  "GET /api/keys": { response: { keys: ApiKey[] } };
  "DELETE /api/keys/:keyId": { response: null };
  /** `request`: the authorization request's query string; an invalid one its client must hear of answers its redirect instead. */
  "GET /api/oauth/authorize": { query: { request: string }; response: { consent: OAuthConsent } | OAuthRedirect };
  "POST /api/oauth/authorize": { body: OAuthDecision; response: OAuthRedirect };
  "POST /api/threads/:id/runs/:runId/approvals/:toolUseId": { body: { approve: boolean }; response: { approval: PendingApproval; approve: boolean } };
}

/** A schedule as a client writes it: at most one of `at`, `every`, `cron` (exactly one on create). */
export interface ScheduleBody {
  name?: string;
  prompt?: string;
  at?: number;
  every?: number;
  cron?: string;
  timezone?: string;
  enabled?: boolean;
}

export type Route = keyof Api;
export type BodyOf<R extends Route> = Api[R] extends { body: infer B } ? B : never;
export type QueryOf<R extends Route> = Api[R] extends { query: infer Q } ? Q : never;
export type ResponseOf<R extends Route> = Api[R]["response"];

export type { MessageKind };
