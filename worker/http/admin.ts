import { Hono } from "hono";
import type { AppEnv } from "./app-env";
import { pluginRoutes } from "./plugins";
import { contextFileRoutes } from "./context-files";
import { metricsRoutes } from "./metrics";
import { taskRoutes } from "./tasks";

/** The routes behind the admin pages: plugins, context files, usage, tasks. */
export const adminRoutes = new Hono<AppEnv>()
  .route("/plugins", pluginRoutes)
  .route("/context", contextFileRoutes)
  .route("/metrics", metricsRoutes)
  .route("/tasks", taskRoutes);
