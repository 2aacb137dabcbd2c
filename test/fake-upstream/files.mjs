// The images and documents the Messages API refuses, as it answers them (400 invalid_request_error,
// the whole request): an image past 5 MB of base64 or 8000 px a side (2000 px once a request holds
// more than 20 images), more than 100 images, each with the path to it; an image it cannot decode,
// with none ("Could not process image"; here a PNG of no width or height); a PDF without its end
// marker ("The PDF specified was not valid.", with the path). Sizes come from PNG and GIF headers.

const MAX_BASE64 = 5 * 1024 * 1024;

/** The refusal for the request's images and documents, or null. */
export function fileRefusal(body) {
  const images = [];
  const pdfs = [];
  (Array.isArray(body.messages) ? body.messages : []).forEach((m, i) => {
    if (!Array.isArray(m?.content)) return;
    m.content.forEach((b, j) => {
      if (b?.type === "tool_result" && Array.isArray(b.content)) b.content.forEach((c, k) => visit(c, `messages.${i}.content.${j}.content.${k}`));
      else visit(b, `messages.${i}.content.${j}`);
    });
  });
  function visit(b, path) {
    if (b?.type === "image" && b.source?.type === "base64" && typeof b.source.data === "string") images.push({ path, data: b.source.data });
    if (b?.type === "document" && b.source?.media_type === "application/pdf" && typeof b.source.data === "string") pdfs.push({ path, data: b.source.data });
  }
  const refuse = (message) => ({ status: 400, type: "invalid_request_error", message });
  for (const { path, data } of pdfs) {
    if (!Buffer.from(data, "base64").includes("%%EOF")) return refuse(`${path}.document.source.base64.data: The PDF specified was not valid.`);
  }
  if (images.length > 100) return refuse(`messages: too many images and documents: ${images.length} > 100`);
  for (const { path, data } of images) {
    if (data.length > MAX_BASE64) return refuse(`${path}.image.source.base64: image exceeds 5 MB maximum: ${data.length} bytes > ${MAX_BASE64} bytes`);
    const side = sideOf(data);
    if (side === -1) return refuse("Could not process image");
    if (side > 8000) return refuse(`${path}.image.source.base64.data: At least one of the image dimensions exceed max allowed size: 8000 pixels`);
    if (images.length > 20 && side > 2000) {
      return refuse(`${path}.image.source.base64.data: At least one of the image dimensions exceed max allowed size for many-image requests: 2000 pixels`);
    }
  }
  return null;
}

function sideOf(data) {
  const b = Buffer.from(data.slice(0, 64), "base64");
  if (b.length >= 24 && b[0] === 0x89 && b.toString("latin1", 12, 16) === "IHDR") {
    const [width, height] = [b.readUInt32BE(16), b.readUInt32BE(20)];
    return width === 0 || height === 0 ? -1 : Math.max(width, height);
  }
  if (b.length >= 10 && b.toString("latin1", 0, 4) === "GIF8") return Math.max(b.readUInt16LE(6), b.readUInt16LE(8));
  return 0;
}
