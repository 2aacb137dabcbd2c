// The thread's public face, for the Worker's routes: its object (by RPC, room-stub.ts), what it answers,
// and the bodies a client sends it, checked by the routes before they reach it.
export { ThreadRoom } from "./room";
export { roomStub, type RoomApi } from "./room-stub";
export type { Caller, RoomReply } from "./room-reply";
export type { Accepted } from "./intake";
export { clientMessageId, postBody, type PostInput } from "./post-input";
export { scheduleCreate, schedulePatch } from "./scheduler";
export type { AskInput, HistoryTurn } from "./program-ask";
