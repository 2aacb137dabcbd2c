import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { MAX_BODY_BYTES } from "../../protocol";
import { VERSION, configOf } from "../env";
import { providerOf } from "../invoker/client";
import { authenticate } from "./auth";
import { ApiError, errorResponse, handleError } from "./errors";
import type { AppEnv } from "./app-env";
import { threadRoutes } from "./threads";
import { chatRoutes } from "./chat";
import { adminRoutes } from "./admin";

export const app = new Hono<AppEnv>();

app.use(
  "/api/*",
  bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) => errorResponse(c, new ApiError("too_large", `Bodies are limited to ${MAX_BODY_BYTES} bytes`)),
  }),
);
app.use("/api/*", authenticate);

app.get("/api/health", (c) =>
  c.json({ ok: true, version: VERSION, model: { provider: providerOf(c.env), default: configOf(c.env).defaultModel } }),
);
app.route("/api/threads", threadRoutes);
app.route("/api", chatRoutes);
app.route("/api", adminRoutes);

app.all("/api/*", (c) => errorResponse(c, new ApiError("not_found", `No route ${c.req.method} ${c.req.path}`)));
app.notFound((c) => errorResponse(c, new ApiError("not_found", "Not found")));
app.onError(handleError);
