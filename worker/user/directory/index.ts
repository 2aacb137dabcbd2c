// The directory: the user's threads as their objects report them, their waiting calls, and search.
export { Directory, type ListOptions } from "./directory";
export { decodeCursor } from "./cursor";
export { ftsQuery } from "./search";
