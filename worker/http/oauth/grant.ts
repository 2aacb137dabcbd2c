// What a grant of the app's authorization server holds of its user.

/** The grant's props (encrypted by the library): the user who approved it, whom /mcp then acts for. */
export interface GrantProps {
  userId: string;
}

/**
 * The library's user id for a grant: ours, encoded, since it is a part of every token and KV key the
 * library makes (`user:grant:secret`) and so may hold no ":" (an access-mode email, a token-mode name).
 */
export const grantSubject = (userId: string): string => encodeURIComponent(userId);
