import type { Config } from "../env";

/** How many context files a user may keep, and how many bytes in all. */
export interface ContextQuota {
  files: number;
  bytes: number;
}

export const contextQuotaOf = (config: Pick<Config, "userContextFilesMax" | "userContextBytesMax">): ContextQuota => ({
  files: config.userContextFilesMax,
  bytes: config.userContextBytesMax,
});

/** What a refused write says: the bound it would pass. */
export const contextQuotaMessage = (quota: ContextQuota) =>
  `Your context files would pass ${quota.files} files or ${sizeOf(quota.bytes)} in all; delete some first`;

const sizeOf = (bytes: number) => (bytes >= 1024 * 1024 ? `${+(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${+(bytes / 1024).toFixed(1)} KiB`);
