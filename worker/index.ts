import { app } from "./http/app";

export { ThreadRoom } from "./thread/room";
export { UserRoom } from "./user/room";

export default { fetch: app.fetch } satisfies ExportedHandler<import("./env").Env>;
