import { Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { requestId } from "hono/request-id";
import { secureHeaders } from "hono/secure-headers";
import { MAX_BODY_BYTES, type Health } from "../../protocol";
import { VERSION, configOf } from "../env";
import { providerOf } from "../invoker/client";
import { authenticate, isAdmin } from "./auth";
import { ApiError, errorResponse, handleError } from "./errors";
import type { AppEnv } from "./app-env";
import { threadRoutes } from "./threads";
import { exportRoutes } from "./export";
import { attachmentRoutes } from "./attachments";
import { searchRoutes } from "./search";
import { artifactRoutes } from "./artifacts";
import { producedFileRoutes } from "./produced-files";
import { approvalRoutes, mcpCallbackRoute, mcpRoutes } from "./mcp";
import { projectRoutes } from "./projects";
import { projectFileRoutes } from "./project-files";
import { sharedPage, sharedPageAnswer, sharedRoutes, shareRoutes, threadShareRoutes } from "./shares";
import { scheduleRoutes, threadScheduleRoutes } from "./schedules";
import { modelRoutes } from "./models";
import { chatRoutes } from "./chat";
import { apiKeyRoutes } from "./api-keys";
import { researchRoutes } from "./research";
import { anthropicRoutes } from "./v1/anthropic";
import { openAiRoutes } from "./v1/openai";
import { openAiError } from "./v1/errors";
import { mcpRoute, oauthConsentRoutes, oauthEndpoints } from "./oauth";
import { adminRoutes } from "./admin";
import { devFaultRoutes } from "./dev-faults";
import { rateLimit } from "./rate-limit";
import { reply } from "./reply";

export const app = new Hono<AppEnv>();

/** The artifact frame's own policy: scripts and styles inline only, no network, framed by the app only. */
const ARTIFACT_FRAME_CSP = [
  "sandbox allow-scripts",
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  "style-src 'unsafe-inline'",
  "img-src data: blob:",
  "font-src data:",
  "media-src data: blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join("; ");

const artifactFrame: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  c.res.headers.set("content-security-policy", ARTIFACT_FRAME_CSP);
  c.res.headers.set("x-frame-options", "SAMEORIGIN");
};

// Every answer, the app's pages included (the Worker runs first for them: wrangler.toml).
app.use(requestId());
app.use(
  secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      // Model markdown may name any image; only our own, data: and blob: (attachment previews) load.
      imgSrc: ["'self'", "data:", "blob:"],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'none'"],
      frameAncestors: ["'none'"],
    },
    referrerPolicy: "no-referrer",
    xFrameOptions: "DENY",
    // A route that sets a header itself means it: an attachment's stricter CSP (sandbox) must stay.
    overwrite: false,
  }),
);

const jsonBodyLimit = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: (c) => errorResponse(c, new ApiError("too_large", `Bodies are limited to ${MAX_BODY_BYTES} bytes`)),
});
// Uploads are files, limited by their type (worker/http/attachments.ts); every other body is JSON.
const UPLOAD = /^\/api\/(threads\/[^/]+\/attachments|projects\/[^/]+\/files)$/;
app.use("/api/*", (c, next) => (c.req.method === "POST" && UPLOAD.test(c.req.path) ? next() : jsonBodyLimit(c, next)));
// A share link's routes are the one designed exception to signing in (the link is the credential).
app.route("/api/shared", sharedRoutes);
// So is an MCP server's OAuth callback: a browser's redirect with no bearer token, whose one-time state is the credential.
app.route("/api/mcp", mcpCallbackRoute);
app.use("/api/*", authenticate);

app.get("/api/health", (c) => {
  const health: Health = {
    ok: true,
    version: VERSION,
    model: { provider: providerOf(c.env), default: configOf(c.env).defaultModel },
    auth: { mode: configOf(c.env).authMode as Health["auth"]["mode"], userId: c.var.userId, admin: isAdmin(c.env, c.var.userId) },
  };
  return reply(c, "GET /api/health", health);
});
app.post("/api/threads", rateLimit("THREAD_LIMITER", "new threads"));
app.route("/api/threads", threadRoutes);
app.route("/api/threads", exportRoutes);
app.route("/api/threads", attachmentRoutes);
app.route("/api/threads", threadScheduleRoutes);
app.route("/api/threads", artifactRoutes);
app.route("/api/threads", producedFileRoutes);
app.route("/api/threads", threadShareRoutes);
app.route("/api/threads", approvalRoutes);
app.route("/api/threads", researchRoutes);
app.route("/api/shares", shareRoutes);
app.route("/api/projects", projectRoutes);
app.route("/api/projects", projectFileRoutes);
app.route("/api/mcp", mcpRoutes);
app.route("/api/schedules", scheduleRoutes);
app.route("/api/search", searchRoutes);
app.route("/api/models", modelRoutes);
app.route("/api/keys", apiKeyRoutes);
app.route("/api/oauth", oauthConsentRoutes);
app.route("/api", chatRoutes);
app.route("/api", adminRoutes);
app.route("/api/dev", devFaultRoutes);

app.all("/api/*", (c) => errorResponse(c, new ApiError("not_found", `No route ${c.req.method} ${c.req.path}`)));
// The compatible endpoints and the MCP server: programs, with an API key (key-auth.ts), not /api's sign-in.
app.route("/v1", openAiRoutes);
app.route("/v1", anthropicRoutes);
app.all("/v1/*", (c) => openAiError(new ApiError("not_found", `No route ${c.req.method} ${c.req.path}`), c));
// An API key, or an access token of the app's own OAuth server (oauth/), whose endpoints are public.
app.all("/mcp", mcpRoute);
app.route("/", oauthEndpoints);
// A share link's page: the web app's read-only view, kept out of search engines like its data.
app.use("/s/*", sharedPage);
app.get("/s/:shareId", rateLimit("SHARE_LIMITER", "requests for shared threads"), sharedPageAnswer);
// The artifact frame (web/public/sandbox/): a page of its own policy, whose sandbox gives it an opaque
// origin however it is opened, so what the model wrote runs there and reaches nothing of the app's.
app.use("/sandbox/*", artifactFrame);
// The web app's files; a path that names none gets index.html (single-page application).
app.get("*", async (c) => {
  if (!c.env.ASSETS) throw new ApiError("not_found", "Not found");
  const res = await c.env.ASSETS.fetch(c.req.raw);
  return new Response(res.body, res); // its headers become ours to add to
});
app.notFound((c) => errorResponse(c, new ApiError("not_found", "Not found")));
app.onError(handleError);
