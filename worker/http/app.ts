import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
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
import { modelRoutes } from "./models";
import { chatRoutes } from "./chat";
import { adminRoutes } from "./admin";

export const app = new Hono<AppEnv>();

const jsonBodyLimit = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: (c) => errorResponse(c, new ApiError("too_large", `Bodies are limited to ${MAX_BODY_BYTES} bytes`)),
});
// Uploads are files, limited by their type (worker/http/attachments.ts); every other body is JSON.
const UPLOAD = /^\/api\/threads\/[^/]+\/attachments$/;
app.use("/api/*", (c, next) => (c.req.method === "POST" && UPLOAD.test(c.req.path) ? next() : jsonBodyLimit(c, next)));
app.use("/api/*", authenticate);

app.get("/api/health", (c) => {
  const health: Health = {
    ok: true,
    version: VERSION,
    model: { provider: providerOf(c.env), default: configOf(c.env).defaultModel },
    auth: { mode: configOf(c.env).authMode as Health["auth"]["mode"], userId: c.var.userId, admin: isAdmin(c.env, c.var.userId) },
  };
  return c.json(health);
});
app.route("/api/threads", threadRoutes);
app.route("/api/threads", exportRoutes);
app.route("/api/threads", attachmentRoutes);
app.route("/api/search", searchRoutes);
app.route("/api/models", modelRoutes);
app.route("/api", chatRoutes);
app.route("/api", adminRoutes);

app.all("/api/*", (c) => errorResponse(c, new ApiError("not_found", `No route ${c.req.method} ${c.req.path}`)));
app.notFound((c) => errorResponse(c, new ApiError("not_found", "Not found")));
app.onError(handleError);
