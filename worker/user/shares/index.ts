// Shares: read-only copies of a thread's branch, read by anyone with the link, revoked at once.
export { UserShares, type ShareBounds, type ShareRefusal } from "./shares";
export { deleteSharedFiles, holderOf, isShareId, newShareId, shareUrl } from "./share-ids";
export { copyOf, markRevoked, publishShare, readShareCopy, type ShareCopy } from "./share-copy";
export { openSharedFile, pointToFiles } from "./share-files";
