// The suites of a deployment with data from before the objects (test/legacy/): vitest.config.ts's, with LEGACY_IMPORT on.
import { workerdConfig } from "./vitest.config";

export default workerdConfig({ legacy: true });
