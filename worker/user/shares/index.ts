// Shares: read-only copies of a thread's branch, read by anyone with the link, revoked at once.
export { UserShares, type Snapshot } from "./shares";
export { holderOf, newShareId, sharedFileKey, shareUrl } from "./share-ids";
export { markRevoked, publishShare, readShareCopy, type ShareCopy } from "./share-copy";
