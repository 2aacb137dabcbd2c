import { app } from "./http/app";

export { ThreadRoom } from "./thread/room";

export default { fetch: app.fetch } satisfies ExportedHandler<import("./env").Env>;
