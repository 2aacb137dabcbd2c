// What one run uses of its thread's object. The object builds these once; every run shares them.
import type { Config } from "../../env";
import type { Invoker } from "../../invoker/invoke";
import type { Logger } from "../../lib/logger";
import type { PluginHost } from "../../plugins/host";
import type { UserApi } from "../../user/stub";
import type { Approvals } from "../approvals";
import type { Broadcaster } from "../broadcaster";
import type { Calibration } from "./context-window";
import type { FileBlocks } from "./file-blocks";
import type { ContainerUploads } from "./container-uploads";
import type { ModelView } from "../model-view";
import type { SpendGuard } from "../spend";
import type { StepZero } from "./step-zero";
import type { RoomStore } from "../store";
import type { ThreadWriter } from "../writer";

export interface RunParts {
  store: RoomStore;
  writer: ThreadWriter;
  events: Broadcaster;
  plugins: PluginHost;
  invoker: Invoker;
  view: ModelView;
  calibration: Calibration;
  files: FileBlocks;
  /** The thread's files as the code's container gets them (uploaded once). */
  uploads: ContainerUploads;
  stepZero: StepZero;
  spend: SpendGuard;
  logger: Logger;
  config: Config;
  approvals: Approvals;
  /** The owner's object (the MCP calls go through it). */
  user: (ownerId: string) => UserApi;
  /** Where the thread's files' bytes are (R2): the files its code wrote go there. */
  bucket: R2Bucket;
}
