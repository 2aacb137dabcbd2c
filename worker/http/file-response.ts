// A stored file's bytes as an answer: its own type (never sniffed), its name, cached privately for
// good (ids never change), and under a policy that runs nothing should it be opened at our origin.
export function fileResponse(body: ReadableStream, file: { name: string; mediaType: string; bytes: number }, disposition: "inline" | "attachment"): Response {
  return new Response(body, {
    headers: {
      "content-type": file.mediaType,
      "content-length": String(file.bytes),
      "content-disposition": `${disposition}; filename="${file.name}"`,
      "cache-control": "private, max-age=31536000, immutable",
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'; sandbox",
    },
  });
}
