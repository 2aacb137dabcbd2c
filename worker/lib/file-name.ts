/** A file name as a Content-Disposition header and a listing can carry it (no control characters, quotes or slashes). */
export const safeName = (name: string) => name.replace(/[\u0000-\u001f"\\/]/g, "_");
