import { Hono } from "hono";
import type { AppEnv } from "./app-env";
import { pluginRoutes } from "./plugins";
import { contextFileRoutes } from "./context-files";
import { metricsRoutes } from "./metrics";
import { taskRoutes } from "./tasks";
import { adminUsageRoutes } from "./admin-usage";

/** The routes behind the admin pages: plugins, context files, usage (the user's, and across users for admins), tasks. */
export const adminRoutes = new Hono<AppEnv>()
  .route("/plugins", pluginRoutes)
  .route("/context", contextFileRoutes)
  .route("/metrics", metricsRoutes)
  .route("/tasks", taskRoutes)
  .route("/admin/usage", adminUsageRoutes);
