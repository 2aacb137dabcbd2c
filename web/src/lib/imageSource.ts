// Which images in model output may load. An image from another host tells that host the page is
// open (and, through its URL, what was asked), so only images that need no other host are kept:
// data: and blob: URLs, and URLs of this origin. /cdn-cgi/ is Cloudflare's own (Access's logout is
// there): an "image" pointing at it would act, so it is treated as remote.

export type ImageSource = "inline" | "same-origin" | "remote";

export function imageSource(src: string, origin: string): ImageSource {
  const trimmed = src.trim();
  if (/^(data|blob):/i.test(trimmed)) return "inline";
  let url: URL;
  try {
    // Resolved as the page resolves it: relative paths, `//host/…` and `/\host/…` included.
    url = new URL(trimmed, origin);
  } catch {
    return "remote";
  }
  if (url.origin !== origin || url.pathname.toLowerCase().startsWith("/cdn-cgi/")) return "remote";
  return "same-origin";
}
