// What a program reaches the user's data with: API keys, and the threads the compatible endpoints hold.
export { ApiKeys, hashSecret, holderOfSecret } from "./keys";
export { ApiConversations, type Continuation } from "./conversations";
