// The page "Open in new tab" opens for an HTML artifact (a blob: page the web app writes: tabPage in
// web/src/lib/artifactFrame.ts). That page has the app's origin and policy, so the artifact does not
// run in it: it runs in the page's sandboxed frame (/sandbox/artifact), which this script hands the
// document to, as the app's panel does. Styles are set here (the policy refuses inline ones).
(function () {
  var data = JSON.parse(document.getElementById("artifact").textContent);
  var frame = document.querySelector("iframe");
  document.documentElement.style.height = "100%";
  document.body.style.cssText = "margin:0;height:100%";
  frame.style.cssText = "display:block;border:0;width:100%;height:100%;background:#fff;color-scheme:light";
  var sent = false;
  addEventListener("message", function (e) {
    if (sent || e.source !== frame.contentWindow || !e.data || e.data.type !== "artifact-frame:ready") return;
    sent = true;
    frame.contentWindow.postMessage({ type: "artifact-frame:render", html: data.html, scripts: data.scripts || [] }, "*");
  });
})();
