// The plugin configs' versioned copy. The registry is D1's (plugin_configs, an admin's changes), but
// nothing on a user's way reads D1 for it: every change is published as one JSON object in R2, whose
// etag is its version. The Worker and the threads' objects read the copy, and a reader that holds a
// version asks R2 only whether it moved (a conditional get, no body when it did not). A deployment's
// first read, before any copy exists, makes it from D1.
import type { Db } from "../db/client";
import { syncPluginConfigs, type PluginConfig, type StoredConfig } from "./registry";

const KEY = "registry/plugin-configs.json";

/** The copy as stored (what the code's configs are made from: configsFrom), and its version. */
export interface VersionedConfigs {
  version: string;
  stored: StoredConfig[];
}

export class ConfigCopy {
  constructor(
    private readonly bucket: R2Bucket,
    private readonly db: () => Db,
  ) {}

  /** The configs and their version, or "unchanged" while the copy is still `known`. */
  async read(known?: string | null): Promise<VersionedConfigs | "unchanged"> {
    const object = known ? await this.bucket.get(KEY, { onlyIf: { etagDoesNotMatch: known } }) : await this.bucket.get(KEY);
    if (!object) return this.publish(await syncPluginConfigs(this.db()));
    // A precondition that failed gives the object's metadata without its body.
    if (!hasBody(object)) return "unchanged";
    return { version: object.etag, stored: await object.json<StoredConfig[]>() };
  }

  /** Publishes the configs as they are in D1 now; their new version. */
  async publish(configs: PluginConfig[]): Promise<VersionedConfigs> {
    const stored: StoredConfig[] = configs.map(({ name, enabled, settings }) => ({ name, enabled, settings }));
    const object = await this.bucket.put(KEY, JSON.stringify(stored), { httpMetadata: { contentType: "application/json" } });
    return { version: object.etag, stored };
  }
}

const hasBody = (object: R2Object | R2ObjectBody): object is R2ObjectBody => "body" in object;
